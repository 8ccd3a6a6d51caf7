//go:build js && wasm

package main

import (
	"syscall/js"

	termengine "github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/web/engine"
	"github.com/ptyhost/ptyhost/web/screen"
)

// The page's terminal shows the session's screen as the host's own
// terminal engine keeps it (package web/screen): the leg's engine runs in
// Mirror mode, handing over each snapshot's Screen and each Output
// frame's raw bytes, and paint turns those into the Write events the
// page gives xterm.js, which only renders them. ptyhostWidth(codepoint)
// is the engine's width of a character, the page's xterm.js Unicode
// provider (src/widths.ts).
func init() {
	js.Global().Set("ptyhostWidth", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return termengine.RuneWidth(rune(argInt(args, 0)))
	}))
}

// painter pairs a leg's engine with the screen it paints.
type painter struct {
	scr *screen.Screen
}

// events turns a Mirror-mode engine's events into the page's: a
// snapshot's Size is followed by the full paint of its Screen, a Resize
// frame's by the paint at the new size, an Output frame's Write carries
// the paint of what changed (and is dropped when nothing did), and a
// change of pen is followed by the input modes it turns on or off.
func (p *painter) events(evs []engine.Event) []engine.Event {
	out := make([]engine.Event, 0, len(evs)+1)
	for _, ev := range evs {
		switch ev.Kind {
		case engine.Size:
			var paint []byte
			if ev.Screen != nil {
				paint = p.scr.Load(nil, ev.Screen)
				ev.Screen = nil
			} else {
				paint = p.scr.Resize(nil, ev.Cols, ev.Rows, ev.PxWidth, ev.PxHeight)
			}
			out = append(out, ev)
			if len(paint) > 0 {
				out = append(out, engine.Event{Kind: engine.Write, Seq: ev.Seq, Data: paint})
			}
		case engine.Write:
			if paint := p.scr.Write(nil, ev.Raw); len(paint) > 0 {
				out = append(out, engine.Event{Kind: engine.Write, Seq: ev.Seq, Data: paint})
			}
		case engine.Pen:
			out = append(out, ev)
			if paint := p.scr.SetInput(nil, ev.Holding); len(paint) > 0 {
				out = append(out, engine.Event{Kind: engine.Write, Data: paint})
			}
		default:
			out = append(out, ev)
		}
	}
	return out
}
