package castchain_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost/internal/cast"
	"github.com/ptyhost/ptyhost/internal/castchain"
)

func ExampleVerify() {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	var file bytes.Buffer
	chain := castchain.NewWriter(&file, castchain.Options{Key: key, EveryLines: 2})
	w, _ := cast.NewWriter(chain, cast.Header{Version: 3, Width: 80, Height: 24})
	w.Output(100_000, []byte("hello\r\n"))
	w.Output(200_000, []byte("world\r\n"))
	w.Close(200_000)
	chain.Close()

	pub := key.Public().(ed25519.PublicKey)
	rep, _ := castchain.Verify(bytes.NewReader(file.Bytes()), castchain.VerifyOptions{Key: pub})
	fmt.Println(rep.Intact(), rep.Events, rep.Closed)

	changed := strings.Replace(file.String(), "world", "w0rld", 1)
	rep, _ = castchain.Verify(strings.NewReader(changed), castchain.VerifyOptions{Key: pub})
	fmt.Println(rep.Problems[0].Line, rep.Problems[0].Kind)
	// Output:
	// true 3 true
	// 4 changed
}
