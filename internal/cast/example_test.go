package cast_test

import (
	"fmt"
	"os"

	"github.com/ptyhost/ptyhost/internal/cast"
)

func ExampleWriter() {
	w, err := cast.NewWriter(os.Stdout, cast.Header{Width: 80, Height: 24})
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Output(250_000, []byte("caf\xc3")) // "é" split across two reads
	w.Output(500_000, []byte("\xa9\r\n"))
	w.Resize(750_000, 100, 30)
	w.Marker(1_000_000, "done")
	w.Close(1_000_000)
	// Output:
	// {"version":2,"width":80,"height":24}
	// [0.250000, "o", "caf"]
	// [0.500000, "o", "é\r\n"]
	// [0.750000, "r", "100x30"]
	// [1.000000, "m", "done"]
}
