package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ptyhost/ptyhost"
)

// bound is a numeric or length limit on one property of a tool's input.
type bound struct {
	min, max float64
}

// schemaFor infers the input schema of In from its struct tags and adds
// the bounds that tags cannot express: numeric ranges, and the longest
// string or array for string and array properties. A bound naming no
// property is a bug, and panics at startup.
func schemaFor[In any](bounds map[string]bound) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(In), err))
	}
	for name, b := range bounds {
		p, ok := s.Properties[name]
		if !ok {
			panic(fmt.Sprintf("mcpserver: schema of %T has no property %q", *new(In), name))
		}
		switch p.Type {
		case "string":
			n := int(b.max)
			p.MaxLength = &n
		case "array":
			n := int(b.max)
			p.MaxItems = &n
		default:
			p.Minimum, p.Maximum = &b.min, &b.max
		}
	}
	return s
}

var sizeBounds = map[string]bound{
	"cols": {1, ptyhost.MaxCols},
	"rows": {1, ptyhost.MaxRows},
}

var viewBounds = map[string]bound{
	"since":      {0, 1 << 53},
	"scrollback": {-1, maxScrollback},
}

func startSchema() any {
	return schemaFor[startIn](map[string]bound{
		"cols": sizeBounds["cols"], "rows": sizeBounds["rows"],
		"command": {0, 4096}, "args": {0, maxArgs}, "cwd": {0, 4096},
	})
}

func viewSchema[In any]() any { return schemaFor[In](viewBounds) }

func typeSchema() any {
	return schemaFor[typeIn](map[string]bound{"text": {0, maxTypeBytes}, "keys": {0, maxKeys}})
}

func waitSchema() any {
	b := map[string]bound{
		"pattern":    {0, maxPatternLen},
		"quiet_ms":   {0, float64(maxTimeout.Milliseconds())},
		"timeout_ms": {0, float64(maxTimeout.Milliseconds())},
	}
	for k, v := range viewBounds {
		b[k] = v
	}
	return schemaFor[waitIn](b)
}

func outputSchema() any {
	return schemaFor[outputIn](map[string]bound{"from": {0, 1 << 53}, "max_bytes": {1, maxOutputBytes}})
}

func resizeSchema() any { return schemaFor[resizeIn](sizeBounds) }
func idSchema() any     { return schemaFor[idIn](nil) }
func listSchema() any   { return schemaFor[struct{}](nil) }
func shareSchema() any  { return schemaFor[shareIn](nil) }
