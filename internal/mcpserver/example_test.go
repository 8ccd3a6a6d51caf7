package mcpserver_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost/internal/mcpserver"
)

// Serve the tools to a client in the same process and list them.
func Example() {
	serverT, clientT := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcpserver.New(mcpserver.Options{}).Run(ctx, serverT) }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		log.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Print(t.Name, " ")
	}
	fmt.Println()
	cs.Close()
	cancel()
	<-done
	// Output: list output resize screen start stop type wait
}
