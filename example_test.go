package ptyhost_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
)

// Spawn a command, follow its frames from the start, and report how it
// ended.
func ExampleSpawn() {
	s, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"sh", "-c", "printf hello; exit 3"}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Stop(context.Background())

	sub, err := s.Subscribe(0)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []byte
	for {
		f, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			break // the Exit frame was the last one
		}
		if err != nil {
			log.Fatal(err)
		}
		switch f.Type {
		case attachwire.TypeOutput:
			out = append(out, f.Payload...)
		case attachwire.TypeExit:
			ex, _ := attachwire.DecodeExit(f.Payload)
			fmt.Printf("output %q, exit code %d (seq %d)\n", out, ex.Code, f.Seq)
		}
	}
	// Output: output "hello", exit code 3 (seq 2)
}

// Take a snapshot of the screen the host's terminal emulator maintains.
func ExampleSession_Snapshot() {
	s, err := ptyhost.Spawn(ptyhost.Spec{
		Command: []string{"printf", `\033[1mtitle\033[m\nbody`},
		Cols:    20, Rows: 3,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Stop(context.Background())
	<-s.Done()

	scr, atSeq, err := s.Snapshot()
	if err != nil {
		log.Fatal(err)
	}
	for row := range scr.Rows {
		var line strings.Builder
		for _, c := range scr.Primary[row*scr.Cols : (row+1)*scr.Cols] {
			line.WriteString(c.Content)
		}
		fmt.Printf("%q\n", strings.TrimRight(line.String(), " "))
	}
	fmt.Println("first cell bold:", scr.Primary[0].Style&attachwire.StyleBold != 0)
	ex, _ := s.Exit()
	fmt.Println("atSeq is the Exit frame:", atSeq > 0, "code", ex.Code)
	// Output:
	// "title"
	// "body"
	// ""
	// first cell bold: true
	// atSeq is the Exit frame: true code 0
}

// Serve snapshots the way a relay does on every join: one buffer, reused,
// holding a Snapshot frame's payload and the seq the subscription resumes
// after.
func ExampleSession_AppendSnapshot() {
	s, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"printf", "ready"}, Cols: 20, Rows: 3})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Stop(context.Background())
	<-s.Done()

	var buf []byte
	for range 2 { // say, two viewers joining
		var atSeq uint64
		buf, atSeq, err = s.AppendSnapshot(buf[:0])
		if err != nil {
			log.Fatal(err)
		}
		snap, err := attachwire.DecodeSnapshot(buf)
		if err != nil {
			log.Fatal(err)
		}
		scr, err := snap.DecodeScreen()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("atSeq matches: %v, first row %q\n", snap.AtSeq == atSeq, scr.Primary[0].Content+scr.Primary[1].Content+scr.Primary[2].Content+scr.Primary[3].Content+scr.Primary[4].Content)
	}
	// Output:
	// atSeq matches: true, first row "ready"
	// atSeq matches: true, first row "ready"
}
