//go:build js && wasm

package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/engine"
)

// laneMethods adds to the engine object what the degraded lane needs of
// the wire, so that the page writes no lane format of its own: the body of
// its next POST (attachwire.ViewerBatch), the reading of the relay's
// answer (attachwire.ViewerBatchAnswer) and of an SSE event's frame.
func laneMethods(e *engine.Engine, p *painter, method func(string, func([]js.Value) any)) {
	// laneBatch(maxInputs, maxBytes, controls) returns {body, last}: the
	// JSON body carrying the inputs awaiting an ack (at most maxInputs and
	// maxBytes of them) and the held controls (marshalled frames), and the
	// inputSeq of the last input (0 with none); or an error's text.
	method("laneBatch", func(a []js.Value) any {
		inputs, _ := e.Pending(argInt(a, 0), argInt(a, 1))
		var controls []attachwire.Frame
		if len(a) > 2 && a[2].Type() == js.TypeObject {
			for i := range a[2].Length() {
				f, err := attachwire.DecodeFrame(bytesFromJS(a[2].Index(i)))
				if err != nil {
					return js.ValueOf("lane batch: " + err.Error())
				}
				controls = append(controls, f)
			}
		}
		b, err := attachwire.NewViewerBatch(attachwire.NewBatchID(), inputs, controls)
		if err != nil {
			return js.ValueOf(err.Error())
		}
		body, err := json.Marshal(b)
		if err != nil {
			return js.ValueOf(err.Error())
		}
		o := js.Global().Get("Object").New()
		o.Set("body", string(body))
		o.Set("inputs", len(inputs))
		var last uint64
		if b.LastInputSeq != nil {
			last = *b.LastInputSeq
		}
		o.Set("last", float64(last))
		return o
	})
	// laneAck(text) applies a 200's or 409's body and returns {ack,
	// events}, or an error's text for a body that is not an answer.
	method("laneAck", func(a []js.Value) any {
		if len(a) == 0 || a[0].Type() != js.TypeString {
			return js.ValueOf("lane answer: not text")
		}
		ans, err := attachwire.ParseViewerBatchAnswer([]byte(a[0].String()))
		if err != nil {
			return js.ValueOf(err.Error())
		}
		o := js.Global().Get("Object").New()
		o.Set("ack", float64(ans.AckInputSeq))
		o.Set("events", eventsToJS(e.Ack(ans.AckInputSeq)))
		return o
	})
	// applyLane(data) applies the frame an SSE event carries (its data
	// line: the frame in standard base64), as apply does a WebSocket
	// message.
	method("applyLane", func(a []js.Value) any {
		if len(a) == 0 || a[0].Type() != js.TypeString {
			return js.ValueOf("lane event: not text")
		}
		f, err := attachwire.DecodeLaneFrame([]byte(a[0].String()))
		if err != nil {
			return js.ValueOf(err.Error())
		}
		evs, err := e.ApplyFrame(f)
		if err != nil {
			return js.ValueOf(err.Error())
		}
		return eventsToJS(p.events(evs))
	})
}
