package seal_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// A host seals an Output frame; a viewer holding the same key (from the
// link's fragment) opens it; the relay between them can check its form
// but not read it.
func Example() {
	key, err := seal.GenerateKey()
	if err != nil {
		panic(err)
	}
	host := seal.NewRoom(key, "room-1")
	sealed, err := host.Seal(attachwire.Frame{Type: attachwire.TypeOutput, Seq: 1, Payload: []byte("hello")}, 7)
	if err != nil {
		panic(err)
	}
	_, err = seal.Check(sealed) // what a relay can verify
	fmt.Println("relay check:", err, "- sealed bytes:", len(sealed.Payload))

	fromLink, err := seal.ParseKey(key.Encode())
	if err != nil {
		panic(err)
	}
	viewer := seal.NewRoom(fromLink, "room-1")
	plain, err := viewer.Open(sealed, 7)
	fmt.Printf("viewer: %q %v\n", plain.Payload, err)

	moved := sealed
	moved.Seq = 2 // a relay replaying it at another position
	_, err = viewer.Open(moved, 7)
	fmt.Println("moved:", err)
	// Output:
	// relay check: <nil> - sealed bytes: 45
	// viewer: "hello" <nil>
	// moved: seal: the frame failed its integrity check
}
