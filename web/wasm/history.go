//go:build js && wasm

package main

import (
	"bytes"
	"errors"
	"io"
	"syscall/js"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/web/engine"
)

// The room's history (docs/relay.md, "History and rewind") arrives as
// frames files, sealed in a sealed room; the page reads them through
// ptyhostHistory({sessionId, key?, epoch, sealed}), given the room key
// as the link carries it and what the history's index states (its epoch
// and key id). It returns an error string (a sentence: the link's key
// cannot read this history), or an object whose methods open every
// frame here, with engine.HistoryOpener, before the page sees it:
//
//   - frames([bytes, ...][, seq, end]) returns {frames, failed}: the
//     frames of the files, in order, opened, as messages (what an
//     engine's apply takes), and how many failed to open, each replaced
//     by an empty Output frame at its seq (nothing of it is drawn, and
//     the frames after it still follow on); with seq and end, the Output
//     frame seq is cut to its first end bytes, so that the screen shows
//     the moment a search match was printed. An error string for a file
//     that does not decode.
//   - searcher(query) returns {feed(bytes)}, which looks for query
//     (case-insensitive) in the Output of a file's frames, fed in order
//     across calls, and returns {found: [{seq, end, line}], failed}: the
//     new matches, and how many frames have failed to open so far
//     (skipped: no match spans them).
//
// The page writes no wire format of its own, and the text searched for
// never leaves it.
func init() {
	js.Global().Set("ptyhostHistory", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeObject {
			return js.ValueOf("ptyhostHistory: want one options object")
		}
		o := args[0]
		var key *seal.Key
		if k := stringOf(o, "key"); k != "" {
			var err error
			if key, err = seal.ParseKey(k); err != nil {
				return js.ValueOf("the link's room key is damaged: copy the whole link again")
			}
		}
		session, epoch, sealed := stringOf(o, "sessionId"), uint64(intOf(o.Get("epoch"))), stringOf(o, "sealed")
		if _, err := engine.NewHistoryOpener(key, session, epoch, sealed); err != nil {
			// NewHistoryOpener returns it unwrapped; errors.As would bring
			// reflection into the WebAssembly (about 50 KB).
			if ke, ok := err.(*engine.HistoryKeyError); ok {
				return js.ValueOf(ke.Message)
			}
			return js.ValueOf(err.Error())
		}
		opener := func() *engine.HistoryOpener {
			op, _ := engine.NewHistoryOpener(key, session, epoch, sealed) // accepted above
			return op
		}
		obj := js.Global().Get("Object").New()
		obj.Set("frames", js.FuncOf(func(_ js.Value, a []js.Value) any { return historyFrames(opener(), a) }))
		obj.Set("searcher", js.FuncOf(func(_ js.Value, a []js.Value) any {
			if len(a) != 1 || a[0].Type() != js.TypeString {
				return js.ValueOf("searcher: want the text to find")
			}
			return historySearcher(opener(), engine.NewSearcher(a[0].String()))
		}))
		return obj
	}))
}

// historyFrames is the frames method: one screen's frames, opened.
func historyFrames(op *engine.HistoryOpener, args []js.Value) any {
	if len(args) != 1 && len(args) != 3 || args[0].Type() != js.TypeObject {
		return js.ValueOf("frames: want the bytes of frames files, and maybe a seq and an end")
	}
	cutSeq, cutEnd := uint64(0), 0
	if len(args) == 3 {
		cutSeq, cutEnd = uint64(argInt(args, 1)), argInt(args, 2)
	}
	var fs []attachwire.Frame
	keep := func(f attachwire.Frame) {
		f, ok := op.Open(f)
		switch {
		case !ok && f.Seq == 0:
			return // a key frame beside the stream: nothing to stand in for
		case !ok:
			f = attachwire.Frame{Type: attachwire.TypeOutput, Seq: f.Seq}
		case f.Seq == cutSeq && f.Type == attachwire.TypeOutput && cutEnd >= 0 && cutEnd < len(f.Payload):
			f.Payload = f.Payload[:cutEnd]
		}
		fs = append(fs, f)
	}
	for i := range args[0].Length() {
		if err := eachFrame(bytesFromJS(args[0].Index(i)), keep); err != nil {
			return js.ValueOf(err.Error())
		}
	}
	o := js.Global().Get("Object").New()
	o.Set("frames", framesToJS(fs))
	o.Set("failed", op.Failed())
	return o
}

// historySearcher is the searcher method's object.
func historySearcher(op *engine.HistoryOpener, s *engine.Searcher) js.Value {
	obj := js.Global().Get("Object").New()
	obj.Set("feed", js.FuncOf(func(_ js.Value, a []js.Value) any {
		if len(a) != 1 {
			return js.ValueOf("feed: want the bytes of a frames file")
		}
		var ms []engine.Match
		err := eachFrame(bytesFromJS(a[0]), func(f attachwire.Frame) {
			if f.Type != attachwire.TypeOutput {
				return // nothing else is searched: not worth opening
			}
			if f, ok := op.Open(f); ok {
				ms = s.Feed(f, ms)
			} else {
				s.Gap()
			}
		})
		if err != nil {
			return js.ValueOf(err.Error())
		}
		arr := js.Global().Get("Array").New()
		for _, m := range ms {
			mo := js.Global().Get("Object").New()
			mo.Set("seq", float64(m.Seq))
			mo.Set("end", m.End)
			mo.Set("line", m.Line)
			arr.Call("push", mo)
		}
		o := js.Global().Get("Object").New()
		o.Set("found", arr)
		o.Set("failed", op.Failed())
		return o
	}))
	return obj
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
