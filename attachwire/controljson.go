package attachwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"unicode"
)

// Control JSON is read with exact member names. encoding/json alone
// matches names case-insensitively and lets the last of a repeated name
// win, so {"type":"grab","Type":"kill"} would be a kill here and a grab
// to a case-sensitive parser (JavaScript's JSON.parse) in a relay or
// viewer. ParseControl therefore splits each object it interprets (the
// document, a subscribe's viewport, each presence member) into members
// first, rejects an object whose names repeat or fold to the same name,
// and hands encoding/json a rebuilt object holding only the members whose
// names equal a struct field's json name exactly. Objects nobody
// interprets (an unknown member's value) are not examined.

// member is one name/value pair of a JSON object, in document order.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers splits doc, one JSON value with optional surrounding
// whitespace, into the members of the object it holds. isObject is false,
// with no error, when doc is valid JSON but not an object; the caller
// decides. Malformed JSON, a name that occurs twice, or two names equal
// under Unicode case folding (strings.EqualFold, as encoding/json matches
// field names) is a *FramingError whose reason starts with what.
func objectMembers(what string, doc []byte) (members []member, isObject bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil {
		return nil, false, jsonError(what, err)
	} else if tok != json.Delim('{') {
		return nil, false, nil
	}
	seen := make(map[string]string) // folded name -> name as sent
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false, jsonError(what, err)
		}
		name, _ := tok.(string) // the decoder only returns a string here
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false, jsonError(what, err)
		}
		folded := foldName(name)
		if prev, dup := seen[folded]; dup {
			if prev == name {
				return nil, false, framingf("%s has member %q twice", what, name)
			}
			return nil, false, framingf("%s members %q and %q differ only in case", what, prev, name)
		}
		seen[folded] = name
		members = append(members, member{name: name, value: value})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, false, jsonError(what, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, false, framingf("%s json has data after the object", what)
		}
		return nil, false, jsonError(what, err)
	}
	return members, true, nil
}

// jsonError wraps a json.Decoder error; input that ends inside the
// document is io.ErrUnexpectedEOF.
func jsonError(what string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &FramingError{Reason: what + " json", Err: err}
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

// exactObject returns a JSON object holding, in order, the members whose
// names equal the json name of a field of the struct type t, each value
// made exact for its field's type by exactValue.
func exactObject(what string, members []member, t reflect.Type) (json.RawMessage, error) {
	out := []byte{'{'}
	for _, m := range members {
		f, ok := fieldByJSONName(t, m.name)
		if !ok {
			continue
		}
		v, err := exactValue(what+" "+m.name, m.value, f.Type)
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		// m.name equals a struct tag name: plain ASCII, nothing to escape.
		out = append(out, '"')
		out = append(out, m.name...)
		out = append(out, '"', ':')
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

// exactValue rewrites raw, a valid JSON value to be decoded into a value of
// type t, so that every object decoding into a struct holds only exact
// member names: a struct (or pointer to one) through exactObject, a slice
// of structs element by element. Other values, and values of the wrong
// JSON kind (left for json.Unmarshal to reject), are returned as they are.
func exactValue(what string, raw json.RawMessage, t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct:
		members, isObject, err := objectMembers(what, raw)
		if err != nil || !isObject {
			return raw, err
		}
		return exactObject(what, members, t)
	case t.Kind() == reflect.Slice && structElem(t.Elem()):
		return exactArray(what, raw, t.Elem())
	}
	return raw, nil
}

// exactArray applies exactValue to each element of the JSON array raw.
func exactArray(what string, raw json.RawMessage, elem reflect.Type) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil {
		return nil, jsonError(what, err)
	} else if tok != json.Delim('[') {
		return raw, nil
	}
	out := []byte{'['}
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, jsonError(what, err)
		}
		v, err := exactValue(what, v, elem)
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, jsonError(what, err)
	}
	return append(out, ']'), nil
}

// structElem reports whether t is a struct or a pointer to one.
func structElem(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// fieldByJSONName returns the exported field of the struct type t whose
// json name (the tag's name, else the field's name) is name. Control
// structs embed nothing, so promoted fields are not looked for.
func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		n, _, _ := strings.Cut(tag, ",")
		if n == "" {
			n = f.Name
		}
		if n == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
