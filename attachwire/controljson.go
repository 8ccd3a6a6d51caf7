package attachwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Control JSON is read with exact member names. encoding/json alone
// matches names case-insensitively and lets the last of a repeated name
// win, so {"type":"grab","Type":"kill"} would be a kill here and a grab
// to a case-sensitive parser (JavaScript's JSON.parse) in a relay or
// viewer. ParseControl therefore walks each object it interprets (the
// document, a subscribe's viewport, each presence member) itself: it
// rejects an object whose names repeat or fold to the same name, and
// decodes only the members whose names equal a struct field's json name
// exactly. Objects nobody interprets (an unknown member's value) are not
// examined.
//
// The walk runs over a document json.Valid has accepted, reads values in
// place and allocates only what the result holds (its strings, a
// viewport, the members slice, sized by counting first), so decoding
// costs a small multiple of the input whatever its shape.

// jsonPath names the object being decoded in errors: top is the control
// ("kill control"), field the member of it being decoded, if any. Reasons
// are only formatted when an error is returned.
type jsonPath struct {
	top, field string
}

// String returns "kill control" or "subscribe control viewport".
func (p jsonPath) String() string {
	if p.field == "" {
		return p.top
	}
	return p.top + " " + p.field
}

// typeError reports a member value of the wrong JSON kind for its field,
// as encoding/json would have: a *FramingError "<control> json" around a
// *json.UnmarshalTypeError.
func (p jsonPath) typeError(raw []byte, t reflect.Type) error {
	return &FramingError{Reason: p.top + " json", Err: &json.UnmarshalTypeError{Value: jsonKind(raw), Type: t, Field: p.field}}
}

// jsonKind names the kind of the JSON value raw, as encoding/json's
// errors do.
func jsonKind(raw []byte) string {
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number " + string(raw)
}

// topObject returns the object doc holds, without surrounding whitespace.
// Malformed JSON, data after the object and a document that is not an
// object are *FramingErrors; input that ends inside the document carries
// io.ErrUnexpectedEOF.
func topObject(doc []byte) ([]byte, error) {
	if !json.Valid(doc) {
		return nil, invalidJSON("control", doc)
	}
	v := doc[skipSpace(doc, 0):]
	v = v[:valueEnd(v, 0)]
	if v[0] != '{' {
		return nil, framingf("control is not a JSON object")
	}
	return v, nil
}

// invalidJSON explains why doc is not one valid JSON value. It runs only
// on the error path, so it can afford a json.Decoder.
func invalidJSON(what string, doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return &FramingError{Reason: what + " json", Err: err}
	}
	if v[0] == '{' {
		return framingf("%s json has data after the object", what)
	}
	return framingf("%s is not a JSON object", what)
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-whitespace byte of p at or
// after i.
func skipSpace(p []byte, i int) int {
	for i < len(p) && isSpace(p[i]) {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value that starts at p[i].
// p is valid JSON, so only strings and nesting need tracking.
func valueEnd(p []byte, i int) int {
	switch p[i] {
	case '"':
		return stringEnd(p, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(p); j++ {
			switch p[j] {
			case '"':
				j = stringEnd(p, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(p)
	}
	j := i
	for j < len(p) && !isSpace(p[j]) && p[j] != ',' && p[j] != '}' && p[j] != ']' {
		j++
	}
	return j
}

// stringEnd returns the index just past the JSON string that starts at
// p[i].
func stringEnd(p []byte, i int) int {
	for j := i + 1; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(p)
}

// maxLinearNames is how many member names eachMember compares pairwise;
// past it, names are folded into a map.
const maxLinearNames = 16

// eachMember calls fn with the name and value of each member of obj, a
// valid JSON object, in document order. A name that occurs twice, or two
// names equal under Unicode case folding (as encoding/json matches field
// names), is a *FramingError naming path.
func eachMember(path jsonPath, obj []byte, fn func(name, value []byte) error) error {
	var small [maxLinearNames][]byte
	names := small[:0]
	var folded map[string][]byte // past maxLinearNames names
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		end := stringEnd(obj, i)
		name := unquote(obj[i:end])
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		vend := valueEnd(obj, i)
		value := obj[i:vend]
		i = skipSpace(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		var prev []byte
		if folded == nil {
			for _, n := range names {
				if bytes.EqualFold(n, name) {
					prev = n
					break
				}
			}
			if names = append(names, name); len(names) == maxLinearNames {
				folded = make(map[string][]byte)
				for _, n := range names {
					folded[foldName(string(n))] = n
				}
			}
		} else {
			key := foldName(string(name))
			prev = folded[key]
			folded[key] = name
		}
		switch {
		case prev == nil:
		case bytes.Equal(prev, name):
			return framingf("%s has member %q twice", path, name)
		default:
			return framingf("%s members %q and %q differ only in case", path, prev, name)
		}
		if err := fn(name, value); err != nil {
			return err
		}
	}
	return nil
}

// foldName maps each rune of s to the smallest rune of its case-folding
// orbit, so foldName(a) == foldName(b) exactly when strings.EqualFold(a, b):
// "TYPE", "type" and "Type" fold alike, and so do "k" and the Kelvin sign.
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return m
	}, s)
}

// unquote returns the contents of q, a valid JSON string literal, as
// encoding/json decodes them: escapes resolved, invalid UTF-8 and unpaired
// surrogates replaced by U+FFFD. Without an escape or invalid UTF-8 it
// returns a subslice of q.
func unquote(q []byte) []byte {
	s := q[1 : len(q)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			var r rune
			r, i = unescape(s, i)
			out = utf8.AppendRune(out, r)
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			out = utf8.AppendRune(out, r) // RuneError for a bad byte
			i += n
		}
	}
	return out
}

// unescape decodes the escape at s[i] (a backslash) and returns its rune
// and the index after it. A \u escape of a high surrogate takes the low
// surrogate escape after it; an unpaired surrogate is U+FFFD.
func unescape(s []byte, i int) (rune, int) {
	switch c := s[i+1]; c {
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
		r := hex4(s[i+2 : i+6])
		i += 6
		if !utf16.IsSurrogate(r) {
			return r, i
		}
		if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
			if r2 := utf16.DecodeRune(r, hex4(s[i+2:i+6])); r2 != utf8.RuneError {
				return r2, i + 6
			}
		}
		return utf8.RuneError, i
	default: // '"', '\\', '/'
		return rune(c), i + 2
	}
}

// hex4 decodes four hex digits (valid JSON guarantees them).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// valueCodec decodes a JSON value into one Go type of a control: a string
// kind, bool, an unsigned integer, a pointer to one of those or to a
// struct, a struct, or a slice of structs. It is built once per control
// type, when the registry is, and read-only afterwards.
type valueCodec struct {
	typ    reflect.Type
	elem   *valueCodec  // a pointer's or slice's element
	fields []fieldCodec // a struct's fields
	max    int          // a slice's most elements; 0 means no cap
	kind   reflect.Kind
}

// fieldCodec is one struct field with its json name.
type fieldCodec struct {
	name  string
	index int
	codec *valueCodec
}

// newValueCodec returns the codec for t. A kind controls do not use is a
// programming error and panics when the registry is built.
func newValueCodec(t reflect.Type) *valueCodec {
	c := &valueCodec{typ: t, kind: t.Kind()}
	switch c.kind {
	case reflect.String, reflect.Bool, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	case reflect.Pointer:
		c.elem = newValueCodec(t.Elem())
	case reflect.Slice:
		c.elem = newValueCodec(t.Elem())
		if c.elem.kind != reflect.Struct {
			panic("attachwire: control slice of " + t.Elem().String())
		}
		if t == reflect.TypeFor[[]Member]() {
			c.max = MaxPresenceMembers
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			c.fields = append(c.fields, fieldCodec{name: name, index: i, codec: newValueCodec(f.Type)})
		}
	default:
		panic("attachwire: control field of type " + t.String())
	}
	return c
}

// decode stores raw, a valid JSON value, in v, as encoding/json would, but
// with exact member names. null leaves v alone, except that it clears a
// pointer or slice.
func (c *valueCodec) decode(path jsonPath, raw []byte, v reflect.Value) error {
	if raw[0] == 'n' {
		if c.kind == reflect.Pointer || c.kind == reflect.Slice {
			v.SetZero()
		}
		return nil
	}
	switch c.kind {
	case reflect.String:
		if raw[0] != '"' {
			return path.typeError(raw, c.typ)
		}
		v.SetString(string(unquote(raw)))
	case reflect.Bool:
		if raw[0] != 't' && raw[0] != 'f' {
			return path.typeError(raw, c.typ)
		}
		v.SetBool(raw[0] == 't')
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := parseUint(raw)
		if !ok || v.OverflowUint(n) {
			return path.typeError(raw, c.typ)
		}
		v.SetUint(n)
	case reflect.Pointer:
		p := reflect.New(c.elem.typ)
		if err := c.elem.decode(path, raw, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		if raw[0] != '{' {
			return path.typeError(raw, c.typ)
		}
		return c.decodeObject(path, raw, v)
	case reflect.Slice:
		if raw[0] != '[' {
			return path.typeError(raw, c.typ)
		}
		return c.decodeArray(path, raw, v)
	}
	return nil
}

// parseUint reads a JSON number that is a non-negative integer.
func parseUint(raw []byte) (uint64, bool) {
	var n uint64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false // a sign, a fraction or an exponent
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// decodeObject decodes the members of obj whose names equal a field's json
// name into the struct v.
func (c *valueCodec) decodeObject(path jsonPath, obj []byte, v reflect.Value) error {
	return eachMember(path, obj, func(name, value []byte) error {
		for i := range c.fields {
			if f := &c.fields[i]; string(name) == f.name {
				return f.codec.decode(jsonPath{path.top, f.name}, value, v.Field(f.index))
			}
		}
		return nil
	})
}

// decodeArray decodes arr into the slice v, allocated once at its length.
func (c *valueCodec) decodeArray(path jsonPath, arr []byte, v reflect.Value) error {
	n := 0
	for i := skipSpace(arr, 1); arr[i] != ']'; n++ {
		i = skipSpace(arr, valueEnd(arr, i))
		if arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
	if c.max > 0 && n > c.max {
		return framingf("%s: %d elements, more than %d", path, n, c.max)
	}
	s := reflect.MakeSlice(c.typ, n, n)
	i := skipSpace(arr, 1)
	for k := range n {
		end := valueEnd(arr, i)
		if err := c.elem.decode(path, arr[i:end], s.Index(k)); err != nil {
			return err
		}
		if i = skipSpace(arr, end); arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
	v.Set(s)
	return nil
}

// errTooManyMembers is the reason MarshalControl refuses a long presence.
func errTooManyMembers(n int) error {
	return framingf("presence control members: %d elements, more than %d", n, MaxPresenceMembers)
}
