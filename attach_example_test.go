package ptyhost_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
)

// An in-process viewer that drives the session: it joins with a snapshot,
// types a line, and reads sanitized output until the program exits.
func ExampleSession_AttachLocal() {
	s, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"sh", "-c", "read name; echo \"hello, $name\""}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer s.Stop(ctx)

	a, err := s.AttachLocal(ptyhost.LocalAttachOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	fmt.Println("driver:", a.CanDrive())
	a.WriteInput([]byte("world\r"))

	var out strings.Builder
	for {
		f, err := a.Next(ctx)
		if err != nil {
			break // io.EOF after the Exit frame
		}
		switch f.Type {
		case attachwire.TypeSnapshot:
			fmt.Println("joined with a snapshot")
		case attachwire.TypeOutput:
			out.Write(f.Payload)
		case attachwire.TypeExit:
			ex, _ := attachwire.DecodeExit(f.Payload)
			fmt.Println("exit code:", ex.Code)
		}
	}
	// The terminal echoed the typed line before the program answered.
	fmt.Println(strings.Fields(out.String()))
	// Output:
	// driver: true
	// joined with a snapshot
	// exit code: 0
	// [world hello, world]
}
