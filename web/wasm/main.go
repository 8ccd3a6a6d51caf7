//go:build js && wasm

// Command wasm is the browser viewer's protocol engine (package
// web/engine) compiled to WebAssembly. Its main global is the function
// ptyhostEngine(opts), that returns an object whose methods the page
// calls: subscribe, apply, input, viewport, grab, release, ping, holding,
// and for the degraded lane applied, pending, laneBatch, laneAck and
// applyLane (lane.go). Messages cross as Uint8Array, each the engine's
// frame marshalled once here; events come back as plain objects. The
// program then blocks forever: the page owns its lifetime.
//
// More globals serve the page, so that it writes no wire format of its
// own: ptyhostStatus, the status line (package status), and
// ptyhostRetryAfter and ptyhostBackoff (retry.go).
package main

import (
	"syscall/js"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/status"
	"github.com/ptyhost/ptyhost/web/engine"
)

func main() {
	js.Global().Set("ptyhostEngine", js.FuncOf(newEngine))
	select {}
}

// newEngine builds an Engine from {sessionId, connId, driver, key?}: key
// is a sealed room's key as the link's fragment carries it.
func newEngine(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeObject {
		return js.ValueOf("ptyhostEngine: want one options object")
	}
	o := args[0]
	var key *seal.Key
	if k := o.Get("key"); k.Type() == js.TypeString && k.String() != "" {
		var err error
		if key, err = seal.ParseKey(k.String()); err != nil {
			return js.ValueOf("the link's room key is damaged: copy the whole link again")
		}
	}
	e := engine.New(engine.Options{
		SessionID: o.Get("sessionId").String(),
		ConnID:    o.Get("connId").String(),
		Driver:    o.Get("driver").Truthy(),
		// Absent or not a number: 0, the default bound.
		MaxPendingBytes: intOf(o.Get("maxPendingBytes")),
		Key:             key,
	})
	obj := js.Global().Get("Object").New()
	method := func(name string, f func(args []js.Value) any) {
		obj.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) any { return f(args) }))
	}
	method("subscribe", func(a []js.Value) any {
		fs, err := e.Subscribe(argInt(a, 0), argInt(a, 1))
		if err != nil {
			return js.ValueOf(err.Error())
		}
		return framesToJS(fs)
	})
	method("apply", func(a []js.Value) any {
		evs, err := e.Apply(bytesFromJS(a[0]))
		if err != nil {
			return js.ValueOf(err.Error())
		}
		return eventsToJS(evs)
	})
	method("input", func(a []js.Value) any {
		fs, err := e.Input(bytesFromJS(a[0]))
		if err != nil {
			return js.ValueOf(err.Error())
		}
		return framesToJS(fs)
	})
	method("viewport", func(a []js.Value) any {
		f, ok := e.Viewport(argInt(a, 0), argInt(a, 1))
		if !ok {
			return js.Null()
		}
		return frameToJS(f)
	})
	method("grab", func([]js.Value) any { return frameToJS(e.Grab()) })
	method("ping", func([]js.Value) any { return frameToJS(e.Ping()) })
	method("release", func([]js.Value) any { return frameToJS(e.Release()) })
	method("holding", func([]js.Value) any { return e.Holding() })
	// decide(id, verdict, text, reason) is the decide control's frame, or
	// a string saying why it is malformed; fromVisible(s) reverses the
	// key marks of a proposal's visible text, for an editor.
	method("decide", func(a []js.Value) any {
		if len(a) < 4 {
			return js.ValueOf("decide: want id, verdict, text, reason")
		}
		f, err := e.Decide(a[0].String(), a[1].String(), a[2].String(), a[3].String())
		if err != nil {
			return js.ValueOf(err.Error())
		}
		return frameToJS(f)
	})
	method("propose", func(a []js.Value) any {
		if len(a) < 1 {
			return js.ValueOf("propose: want the text")
		}
		f, err := e.Propose(a[0].String())
		if err != nil {
			return js.ValueOf(err.Error())
		}
		return frameToJS(f)
	})
	method("fromVisible", func(a []js.Value) any {
		if len(a) < 1 {
			return ""
		}
		return engine.InputFromVisible(a[0].String())
	})
	// The degraded lane (SSE down, POST up) needs the resume position for
	// its GET and whether inputs await an ack; laneMethods has the rest.
	method("sealed", func([]js.Value) any { return e.KeyID() })
	method("applied", func([]js.Value) any {
		seq, epoch, ok := e.Applied()
		o := js.Global().Get("Object").New()
		o.Set("seq", float64(seq))
		o.Set("epoch", float64(epoch))
		o.Set("ok", ok)
		return o
	})
	method("pending", func(a []js.Value) any {
		fs, first := e.Pending(argInt(a, 0), argInt(a, 1))
		o := js.Global().Get("Object").New()
		o.Set("msgs", framesToJS(fs))
		o.Set("first", float64(first))
		return o
	})
	laneMethods(e, method)
	return obj
}

func argInt(a []js.Value, i int) int {
	if i >= len(a) {
		return 0
	}
	return intOf(a[i])
}

// intOf is v as an int, 0 when it is not a number (absent included).
func intOf(v js.Value) int {
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Int()
}

func bytesFromJS(v js.Value) []byte {
	b := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(b, v)
	return b
}

func bytesToJS(b []byte) js.Value {
	u := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u, b)
	return u
}

// frameToJS is f as the one binary message that carries it.
func frameToJS(f attachwire.Frame) js.Value {
	b, err := f.MarshalBinary()
	if err != nil {
		return js.Null() // the engine's frames are valid
	}
	return bytesToJS(b)
}

func framesToJS(fs []attachwire.Frame) js.Value {
	arr := js.Global().Get("Array").New()
	for _, f := range fs {
		arr.Call("push", frameToJS(f))
	}
	return arr
}

func eventsToJS(evs []engine.Event) js.Value {
	arr := js.Global().Get("Array").New()
	for _, ev := range evs {
		arr.Call("push", eventToJS(ev))
	}
	return arr
}

var kindNames = [...]string{
	engine.Write: "write", engine.Size: "size", engine.Send: "send", engine.Room: "room",
	engine.Presence: "presence", engine.Pen: "pen", engine.Marker: "marker",
	engine.Exit: "exit", engine.Error: "error", engine.ProposalChanged: "proposal",
}

func eventToJS(ev engine.Event) js.Value {
	o := js.Global().Get("Object").New()
	o.Set("kind", kindNames[ev.Kind])
	switch ev.Kind {
	case engine.Write:
		o.Set("data", bytesToJS(ev.Data))
	case engine.Send:
		o.Set("data", frameToJS(ev.Frame))
		o.Set("input", ev.Frame.Type == attachwire.TypeInput)
	case engine.Size:
		o.Set("cols", ev.Cols)
		o.Set("rows", ev.Rows)
		o.Set("text", ev.Text)
	case engine.Presence:
		arr := js.Global().Get("Array").New()
		for _, m := range ev.Members {
			mo := js.Global().Get("Object").New()
			mo.Set("userId", m.UserID)
			mo.Set("connId", m.ConnID)
			mo.Set("role", m.Role)
			mo.Set("driving", m.Driving)
			mo.Set("name", m.Name)
			mo.Set("guest", m.Guest)
			arr.Call("push", mo)
		}
		o.Set("members", arr)
	case engine.Marker:
		o.Set("text", ev.Text)
		// A command mark (attachwire.CommandMark) is read here, in Go, so
		// the page knows its forms without a copy of the rules: mark is
		// "prompt", "command" or "exit" ("" for a free-form marker),
		// command the command line, status the exit status (-1 unknown).
		m, ok := attachwire.ParseCommandMark(ev.Text)
		kind, status := "", -1
		if ok {
			kind = [...]string{attachwire.MarkPrompt: "prompt", attachwire.MarkCommand: "command", attachwire.MarkExit: "exit"}[m.Kind]
			if m.HasStatus {
				status = m.Status
			}
		}
		if attachwire.IsProposalLabel(ev.Text) {
			kind = "proposal" // the outcome the proposals panel shows
		}
		o.Set("mark", kind)
		o.Set("command", m.Command)
		o.Set("status", status)
	case engine.ProposalChanged:
		p := ev.Proposal
		po := js.Global().Get("Object").New()
		po.Set("id", p.ID)
		po.Set("state", p.State)
		po.Set("input", p.Input)
		po.Set("visible", p.Visible)
		po.Set("from", p.From)
		po.Set("by", p.By)
		po.Set("reason", p.Reason)
		po.Set("expiresAt", float64(p.ExpiresAt))
		o.Set("proposal", po)
	default:
		o.Set("text", ev.Text)
		o.Set("message", ev.Message)
		o.Set("code", ev.Code)
		o.Set("retryable", ev.Retryable)
		o.Set("final", ev.Final)
		o.Set("holding", ev.Holding)
	}
	return o
}

// The status line: the page shows what package status says of its room,
// in the words `ptyhost attach` uses. ptyhostStatus(state, width) takes
// {connId, link: "connecting"|"connected"|"reconnecting"|"stopped", lane,
// room, penKnown, penMine, penUser, penConn, members, message} and returns
// {line, persistent, parts: [{kind, text, class}]}, fitted to width cells
// (0: no limit).
func init() {
	js.Global().Set("ptyhostStatus", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 1 || args[0].Type() != js.TypeObject {
			return js.ValueOf("ptyhostStatus: want a state object")
		}
		st := statusFromJS(args[0])
		parts := status.Parts(st, argInt(args, 1))
		o := js.Global().Get("Object").New()
		o.Set("line", status.Join(parts))
		o.Set("persistent", st.Persistent())
		arr := js.Global().Get("Array").New()
		for _, p := range parts {
			po := js.Global().Get("Object").New()
			po.Set("kind", string(p.Kind))
			po.Set("text", p.Text)
			po.Set("class", p.Class)
			arr.Call("push", po)
		}
		o.Set("parts", arr)
		return o
	}))
}

var statusLinks = map[string]status.Link{
	"connecting": status.Connecting, "connected": status.Connected,
	"reconnecting": status.Reconnecting, "stopped": status.Stopped,
}

// statusFromJS reads a status.State; an absent field is its zero value.
func statusFromJS(v js.Value) status.State {
	st := status.State{
		ConnID: stringOf(v, "connId"), Link: statusLinks[stringOf(v, "link")], Lane: v.Get("lane").Truthy(),
		Room:     attachwire.RoomStatus(stringOf(v, "room")),
		PenKnown: v.Get("penKnown").Truthy(), PenMine: v.Get("penMine").Truthy(),
		PenUser: stringOf(v, "penUser"), PenConn: stringOf(v, "penConn"), Message: stringOf(v, "message"),
	}
	if ms := v.Get("members"); ms.Type() == js.TypeObject {
		for i := range ms.Length() {
			m := ms.Index(i)
			st.Members = append(st.Members, attachwire.Member{
				UserID: stringOf(m, "userId"), ConnID: stringOf(m, "connId"),
				Role: attachwire.Role(stringOf(m, "role")), Driving: m.Get("driving").Truthy(),
				Name: stringOf(m, "name"), Guest: m.Get("guest").Truthy(),
			})
		}
	}
	return st
}

// stringOf is v's field name as a string, "" when it is not one (absent
// included: js.Value.String would say "<undefined>").
func stringOf(v js.Value, name string) string {
	if f := v.Get(name); f.Type() == js.TypeString {
		return f.String()
	}
	return ""
}
