package natsembed_test

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/relay/natsembed"
)

// A server on a free loopback port with a temporary store, a client that
// publishes to itself, and Close.
func Example() {
	srv, err := natsembed.Start("127.0.0.1:0", natsembed.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync("greetings")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := nc.Publish("greetings", []byte("hello")); err != nil {
		fmt.Println(err)
		return
	}
	msg, err := sub.NextMsg(10 * time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s\n", msg.Subject, msg.Data)
	// Output: greetings: hello
}
