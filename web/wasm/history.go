//go:build js && wasm

package main

import (
	"bytes"
	"errors"
	"io"
	"syscall/js"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/engine"
)

// The room's history (docs/relay.md, "History and rewind") arrives as
// frames files; these globals read them for the page, which writes no
// wire format of its own:
//
//   - ptyhostFrames(bytes) returns the file's frames as messages (what an
//     engine's apply takes), or an error string;
//   - ptyhostSearcher(query) returns {feed(bytes)}, which looks for query
//     (case-insensitive) in the Output of a file's frames, fed in order
//     across calls, and returns the new matches as [{seq, line}].
func init() {
	js.Global().Set("ptyhostFrames", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 {
			return js.ValueOf("ptyhostFrames: want the bytes of a frames file")
		}
		var fs []attachwire.Frame
		err := eachFrame(bytesFromJS(args[0]), func(f attachwire.Frame) { fs = append(fs, f) })
		if err != nil {
			return js.ValueOf(err.Error())
		}
		return framesToJS(fs)
	}))
	js.Global().Set("ptyhostSearcher", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return js.ValueOf("ptyhostSearcher: want the text to find")
		}
		s := engine.NewSearcher(args[0].String())
		obj := js.Global().Get("Object").New()
		obj.Set("feed", js.FuncOf(func(_ js.Value, a []js.Value) any {
			var ms []engine.Match
			err := eachFrame(bytesFromJS(a[0]), func(f attachwire.Frame) { ms = s.Feed(f, ms) })
			if err != nil {
				return js.ValueOf(err.Error())
			}
			arr := js.Global().Get("Array").New()
			for _, m := range ms {
				o := js.Global().Get("Object").New()
				o.Set("seq", float64(m.Seq))
				o.Set("line", m.Line)
				arr.Call("push", o)
			}
			return arr
		}))
		return obj
	}))
}

// eachFrame calls fn with every frame of a frames file.
func eachFrame(file []byte, fn func(attachwire.Frame)) error {
	r := attachwire.NewFileReader(bytes.NewReader(file))
	for {
		f, err := r.ReadFrame()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		fn(f)
	}
}
