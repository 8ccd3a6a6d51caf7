package attachwire

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// unhex decodes hex written with optional spaces.
func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		tb.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// wantFraming fails unless err is a *FramingError.
func wantFraming(tb testing.TB, err error, context string) {
	tb.Helper()
	var fe *FramingError
	if !errors.As(err, &fe) {
		tb.Fatalf("%s: got error %v (%T), want *FramingError", context, err, err)
	}
	if !strings.HasPrefix(fe.Error(), "attachwire: ") {
		tb.Fatalf("%s: message %q lacks the package prefix", context, fe.Error())
	}
}

// prefixesFail checks that every proper prefix of a valid encoding fails
// to decode with a framing error.
func prefixesFail(tb testing.TB, enc []byte, decode func([]byte) error) {
	tb.Helper()
	for i := range len(enc) {
		wantFraming(tb, decode(enc[:i]), "prefix "+hex.EncodeToString(enc[:i]))
	}
}
