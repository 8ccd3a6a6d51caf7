package faultproxy_test

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/ptyhost/ptyhost/faultproxy"
)

func Example() {
	// A target: a loopback echo server.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.Copy(c, c)
			c.Close()
		}
	}()
	defer func() { ln.Close(); <-done }()

	p, err := faultproxy.New(ln.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	// The first dial is reset; the second reaches the echo server, and
	// the connection is cut after 3 bytes back.
	p.RefuseNext(1)
	refused, err := net.Dial("tcp", p.Addr())
	if err == nil { // the reset comes in connect or in the first read
		_, err = refused.Read(make([]byte, 1))
		refused.Close()
	}
	fmt.Println("refused dial fails:", err != nil)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	c.Write([]byte("h"))
	io.ReadFull(c, make([]byte, 1)) // the connection is live
	p.CutAfter(faultproxy.Downstream, 3)
	c.Write([]byte("ello, world"))
	got, _ := io.ReadAll(c)
	fmt.Printf("echoed after the cut was armed: %q\n", got)
	p.Wait(context.Background(), func(s faultproxy.Stats) bool { return s.Refused == 1 && s.Live == 0 })
	s := p.Stats()
	fmt.Println("dials", s.Dials, "refused", s.Refused, "cuts", s.Cuts)
	// Output:
	// refused dial fails: true
	// echoed after the cut was armed: "ell"
	// dials 2 refused 1 cuts 1
}
