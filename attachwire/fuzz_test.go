package attachwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
)

// requireFraming fails unless err is nil or a *FramingError.
func requireFraming(t *testing.T, err error) {
	t.Helper()
	var fe *FramingError
	if err != nil && !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FramingError", err, err)
	}
}

func FuzzDecodeFrame(f *testing.F) {
	f.Add([]byte{0x01, 0x01, 0xac, 0x02, 'h', 'i'})
	f.Add([]byte{0x02, 0x03, 0x02, 0x05, 0x02, 0x02, 'u', '1', 0x03, 'l', 's', '\r'})
	f.Add([]byte{0x03, 0x00, 0x00, 0x50, 0x18, 0x80, 0x05, 0xe0, 0x03})
	f.Add([]byte{0x05, 0x81, 0x00, 0x00, 0x89, 0x01, 0x07, 'S', 'I', 'G', 'K', 'I', 'L', 'L'})
	f.Fuzz(func(t *testing.T, p []byte) {
		fr, err := DecodeFrame(p)
		requireFraming(t, err)
		if err != nil {
			return
		}
		enc, err := fr.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded frame does not encode: %v", err)
		}
		again, err := DecodeFrame(enc)
		if err != nil {
			t.Fatal(err)
		}
		assertFrameEqual(t, again, fr)
		checkPayloadRoundTrip(t, fr)
	})
}

// checkPayloadRoundTrip decodes a frame's payload by type and, if it
// decodes, checks that it re-encodes to a payload decoding to an equal
// value.
func checkPayloadRoundTrip(t *testing.T, fr Frame) {
	t.Helper()
	var v, w any
	var enc []byte
	var err error
	switch fr.Type {
	case TypeInput:
		var in Input
		if in, err = DecodeInput(fr.Payload); err == nil {
			v, enc = in, AppendInput(nil, in)
			w, err = DecodeInput(enc)
		}
	case TypeResize:
		var r Resize
		if r, err = DecodeResize(fr.Payload); err == nil {
			v = r
			if enc, err = AppendResize(nil, r); err == nil {
				w, err = DecodeResize(enc)
			}
		}
	case TypeMarker:
		var m Marker
		if m, err = DecodeMarker(fr.Payload); err == nil {
			v = m
			if enc, err = AppendMarker(nil, m); err == nil {
				w, err = DecodeMarker(enc)
			}
		}
	case TypeExit:
		var e Exit
		if e, err = DecodeExit(fr.Payload); err == nil {
			v, enc = e, AppendExit(nil, e)
			w, err = DecodeExit(enc)
		}
	case TypeSnapshot:
		var s Snapshot
		if s, err = DecodeSnapshot(fr.Payload); err == nil {
			v = s
			if enc, err = AppendSnapshot(nil, s); err == nil {
				w, err = DecodeSnapshot(enc)
			}
		}
	default:
		return
	}
	requireFraming(t, err)
	if v == nil {
		return
	}
	if err != nil {
		t.Fatalf("%v payload re-encoding fails: %v", fr.Type, err)
	}
	if !reflect.DeepEqual(v, w) {
		t.Fatalf("%v payload %#v re-decodes as %#v", fr.Type, v, w)
	}
}

func FuzzDecodeScreen(f *testing.F) {
	golden, _ := AppendScreen(nil, goldenScreen())
	f.Add(golden)
	alt, _ := AppendScreen(nil, &Screen{Cols: 1, Rows: 1, Active: BufferAlternate, Modes: ModeMouse, Mouse: MouseAny | MouseEncSGR,
		Primary: []Cell{BlankCell()}, Alt: []Cell{{Content: "é", Style: StyleItalic}}})
	f.Add(alt)
	f.Fuzz(func(t *testing.T, p []byte) {
		s, err := DecodeScreen(p)
		requireFraming(t, err)
		if err != nil {
			return
		}
		enc, err := AppendScreen(nil, &s)
		if err != nil {
			t.Fatalf("decoded screen does not encode: %v", err)
		}
		again, err := DecodeScreen(enc)
		if err != nil {
			t.Fatalf("re-encoded screen does not decode: %v", err)
		}
		assertScreenEqual(t, &again, &s)
		if enc2, _ := AppendScreen(nil, &again); !bytes.Equal(enc2, enc) {
			t.Fatal("encoding is not canonical")
		}
	})
}

func FuzzDecodeControl(f *testing.F) {
	for _, doc := range []string{
		`{"type":"subscribe","sessionId":"s","asRole":"viewer","resumeFrom":null,"viewport":{"cols":80,"rows":24}}`,
		`{"type":"presence","op":"list","members":[{"userId":"u","connId":"c","role":"driver","driving":true}]}`,
		`{"type":"error","code":"ring-miss","message":"m","retryable":false}`,
		`{"type":"teleport"}`,
	} {
		f.Add(append(appendUvarint(nil, uint64(len(doc))), doc...))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		c, err := DecodeControl(p)
		if errors.Is(err, ErrUnknownControl) {
			return
		}
		requireFraming(t, err)
		if err != nil {
			return
		}
		enc, err := AppendControl(nil, c)
		if err != nil {
			t.Fatalf("decoded control does not encode: %v", err)
		}
		again, err := DecodeControl(enc)
		if err != nil {
			t.Fatalf("re-encoded control does not decode: %v", err)
		}
		a, _ := MarshalControl(c)
		b, _ := MarshalControl(again)
		if !bytes.Equal(a, b) || again.ControlType() != c.ControlType() {
			t.Fatalf("control %s re-decodes as %s", a, b)
		}
		_, k := uvarint(p)
		checkControlAsJS(t, p[k:], a)
	})
}

// checkControlAsJS checks a parsed control against the document as a
// case-sensitive parser with last-duplicate-wins (JavaScript's JSON.parse)
// reads it: the same "type", and the same value for every top-level string
// or boolean member the control carries.
func checkControlAsJS(t *testing.T, doc, marshaled []byte) {
	t.Helper()
	var js, ours map[string]any
	if err := json.Unmarshal(doc, &js); err != nil {
		t.Fatalf("accepted control %q is not a JSON object: %v", doc, err)
	}
	if err := json.Unmarshal(marshaled, &ours); err != nil {
		t.Fatal(err)
	}
	for name, v := range ours {
		switch v.(type) {
		case string, bool:
			if jv := js[name]; jv != nil && jv != v { // absent or null: the zero value
				t.Fatalf("control %q: member %q is %v, a case-sensitive parser reads %v", doc, name, v, jv)
			}
		}
	}
	if js["type"] != ours["type"] {
		t.Fatalf("control %q: type %v, a case-sensitive parser reads %v", doc, ours["type"], js["type"])
	}
}

func FuzzFileReader(f *testing.F) {
	f.Add(unhex(f, "50 54 59 48 46 52 4d 01 05 01 01 02 68 69 06 05 02 ac 02 00 00"))
	f.Add(unhex(f, "50 54 59 48 46 52 4d 01 80 80 80 20 01"))
	f.Fuzz(func(t *testing.T, p []byte) {
		frames, err := readAll(bytes.NewReader(p))
		var fe *FramingError
		if err != nil && err.Error() == "error is not sticky" {
			t.Fatal(err)
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &fe) {
			t.Fatalf("unexpected error %v", err)
		}
		if len(frames) == 0 {
			return
		}
		again, err := readAll(bytes.NewReader(writeFile(t, frames)))
		if !errors.Is(err, io.EOF) || len(again) != len(frames) {
			t.Fatalf("rewritten file reads %d frames, %v", len(again), err)
		}
		for i := range frames {
			assertFrameEqual(t, again[i], frames[i])
		}
	})
}

// FuzzUnquote: control strings decode as encoding/json decodes them.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`plain`, `caf\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ud83d\u0041`, `a\"b\\c\/d\n`, "\xff\xe2\x82"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		q := append(append([]byte{'"'}, s...), '"')
		var want string
		if json.Unmarshal(q, &want) != nil {
			return
		}
		if got := string(unquote(q)); got != want {
			t.Fatalf("unquote(%q) = %q, encoding/json %q", q, got, want)
		}
	})
}
