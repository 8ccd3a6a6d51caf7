//go:build js && wasm

// Command wasm is the browser viewer's protocol engine (package
// web/engine) compiled to WebAssembly. It registers one global function,
// ptyhostEngine(opts), that returns an object whose methods the page
// calls: subscribe, apply, input, viewport, grab, release, holding, and
// for the degraded lane applied, pending and ack. Messages cross as
// Uint8Array, each the engine's frame marshalled once here; events come
// back as plain objects. The program then blocks forever: the page owns
// its lifetime.
package main

import (
	"syscall/js"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/engine"
)

func main() {
	js.Global().Set("ptyhostEngine", js.FuncOf(newEngine))
	select {}
}

// newEngine builds an Engine from {sessionId, connId, driver}.
func newEngine(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeObject {
		return js.ValueOf("ptyhostEngine: want one options object")
	}
	o := args[0]
	e := engine.New(engine.Options{
		SessionID: o.Get("sessionId").String(),
		ConnID:    o.Get("connId").String(),
		Driver:    o.Get("driver").Truthy(),
		// Absent or not a number: 0, the default bound.
		MaxPendingBytes: intOf(o.Get("maxPendingBytes")),
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
	method("release", func([]js.Value) any { return frameToJS(e.Release()) })
	method("holding", func([]js.Value) any { return e.Holding() })
	// The degraded lane (SSE down, POST up) needs the resume position for
	// its GET, the unacknowledged inputs each batch carries with the
	// inputSeq of the first (they are contiguous), and a way to apply a
	// POST's ackInputSeq.
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
	method("ack", func(a []js.Value) any { return eventsToJS(e.Ack(uint64(argInt(a, 0)))) })
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
	engine.Exit: "exit", engine.Error: "error",
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
			arr.Call("push", mo)
		}
		o.Set("members", arr)
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
