package streamgen_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/internal/streamgen"
)

func ExampleASCII() {
	fmt.Printf("%q\n", streamgen.ASCII(42, 40))
	// Output: "PASS depth compiled of test retrying pac"
}
