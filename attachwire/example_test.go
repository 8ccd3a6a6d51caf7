package attachwire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ptyhost/ptyhost/attachwire"
)

// A host wraps the child's bytes in Output frames and ends the stream with
// an Exit frame; a receiver decodes the header, then the payload by type.
func Example() {
	var wire [][]byte
	for _, f := range []attachwire.Frame{
		attachwire.NewOutputFrame(1, 1500, []byte("hello\r\n")),
		attachwire.Exit{Code: 137, Signal: "SIGKILL"}.Frame(2, 9000),
	} {
		b, err := f.MarshalBinary()
		if err != nil {
			panic(err)
		}
		wire = append(wire, b)
	}
	fmt.Printf("% x\n", wire[1])

	for _, msg := range wire {
		f, err := attachwire.DecodeFrame(msg)
		if err != nil {
			panic(err)
		}
		switch f.Type {
		case attachwire.TypeOutput:
			fmt.Printf("seq %d %v %q\n", f.Seq, f.Type, f.Payload)
		case attachwire.TypeExit:
			e, err := attachwire.DecodeExit(f.Payload)
			if err != nil {
				panic(err)
			}
			fmt.Printf("seq %d %v code %d signal %s\n", f.Seq, f.Type, e.Code, e.Signal)
		}
	}
	// Output:
	// 05 02 a8 46 89 01 07 53 49 47 4b 49 4c 4c
	// seq 1 Output "hello\r\n"
	// seq 2 Exit code 137 signal SIGKILL
}

// A snapshot carries a Screen; a viewer decodes it (and repaints it).
func ExampleNewSnapshot() {
	scr := &attachwire.Screen{
		Cols: 3, Rows: 1, CursorCol: 2, CursorVisible: true,
		Primary: []attachwire.Cell{
			{Content: "o", Style: attachwire.StyleBold, Fg: attachwire.IndexedColor(2)},
			{Content: "k"},
			attachwire.BlankCell(),
		},
	}
	snap, err := attachwire.NewSnapshot(41, scr)
	if err != nil {
		panic(err)
	}
	f, _ := snap.Frame(42, 123456)
	b, _ := f.MarshalBinary()

	g, _ := attachwire.DecodeFrame(b)
	got, _ := attachwire.DecodeSnapshot(g.Payload)
	view, err := got.DecodeScreen()
	if err != nil {
		panic(err)
	}
	fmt.Println("atSeq", got.AtSeq, "size", view.Cols, "x", view.Rows)
	fmt.Printf("%q bold=%v cursor at col %d\n", view.Primary[0].Content+view.Primary[1].Content,
		view.Primary[0].Style&attachwire.StyleBold != 0, view.CursorCol)
	// Output:
	// atSeq 41 size 3 x 1
	// "ok" bold=true cursor at col 2
}

// Controls are JSON documents; an unknown type is a soft error a receiver
// may skip.
func ExampleDecodeControl() {
	p, _ := attachwire.AppendControl(nil, attachwire.PenState{HolderUserID: "ada", PenGeneration: 3})
	c, _ := attachwire.DecodeControl(p)
	if ps, ok := c.(attachwire.PenState); ok {
		fmt.Println(ps.ControlType(), ps.HolderUserID, ps.PenGeneration)
	}

	doc := `{"type":"teleport","to":"mars"}`
	_, err := attachwire.DecodeControl(append([]byte{byte(len(doc))}, doc...))
	fmt.Println(errors.Is(err, attachwire.ErrUnknownControl), err)
	// Output:
	// pen_state ada 3
	// true attachwire: unknown control type "teleport"
}

// A frames file stores frames back to back after a small header.
func ExampleNewFileWriter() {
	var file bytes.Buffer
	w := attachwire.NewFileWriter(&file)
	_ = w.WriteFrame(attachwire.NewOutputFrame(1, 0, []byte("hi")))
	fmt.Printf("% x\n", file.Bytes())

	r := attachwire.NewFileReader(&file)
	for {
		f, err := r.ReadFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Printf("%v %d %q\n", f.Type, f.Seq, f.Payload)
	}
	// Output:
	// 50 54 59 48 46 52 4d 01 05 01 01 00 68 69
	// Output 1 "hi"
}
