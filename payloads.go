package ptyhost

import (
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
)

// The payload builders below are thin wrappers over attachwire's encoders:
// ptyhost never hand-rolls protocol bytes.

func resizePayload(cols, rows, pxWidth, pxHeight int) ([]byte, error) {
	return attachwire.AppendResize(nil, attachwire.Resize{
		Cols: uint32(cols), Rows: uint32(rows),
		PxWidth: uint32(pxWidth), PxHeight: uint32(pxHeight),
	})
}

// markerPayload encodes label, replacing invalid UTF-8 so that it always
// encodes.
func markerPayload(label string) []byte {
	p, err := attachwire.AppendMarker(nil, attachwire.Marker{Label: strings.ToValidUTF8(label, "\uFFFD")})
	if err != nil {
		panic("ptyhost: marker with valid UTF-8 did not encode: " + err.Error())
	}
	return p
}

func exitFramePayload(ex attachwire.Exit) []byte { return attachwire.AppendExit(nil, ex) }
