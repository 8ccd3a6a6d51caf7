package termdriver

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// linesText is what the "lines" helper prints, as the log keeps it.
func linesText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestOutputLog(t *testing.T) {
	// Far more output than the screen, its scrollback or the ring holds:
	// the log reads every byte, holding the program back while it lags.
	const n = 40000
	d := newDriver(t, Options{LogBytes: 1 << 20, Spec: ptyhost.Spec{RingBytes: 64 << 10, Scrollback: -1}})
	spec := helperStart("lines")
	spec.Env = append(spec.Env, "TERMDRIVER_TEST_N="+fmt.Sprint(n))
	s, err := d.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Wait(context.Background(), WaitOptions{Timeout: testkit.Deadline}); err != nil || res.Reason != ReasonExit {
		t.Fatalf("%+v, %v", res, err)
	}
	var got strings.Builder
	var from int64
	testkit.Eventually(t, "the whole log", func() bool {
		for {
			out := s.Output(from, 64<<10)
			got.WriteString(out.Text)
			from = out.To
			if out.Dropped != 0 || out.Lost {
				t.Fatalf("dropped %d, lost %v", out.Dropped, out.Lost)
			}
			if !out.More {
				return out.Done
			}
		}
	})
	if want := linesText(n); got.String() != want {
		t.Fatalf("log holds %d bytes, want %d", got.Len(), len(want))
	}
}

func TestOutputLogBounded(t *testing.T) {
	d := newDriver(t, Options{LogBytes: 100})
	spec := helperStart("lines")
	spec.Env = append(spec.Env, "TERMDRIVER_TEST_N=100")
	s, err := d.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Wait(context.Background(), WaitOptions{Timeout: testkit.Deadline}); err != nil {
		t.Fatal(err)
	}
	var out Output
	testkit.Eventually(t, "the log to be complete", func() bool { out = s.Output(0, 1000); return out.Done })
	total := int64(len(linesText(100)))
	if kept := total - out.Dropped; out.To != total || kept < 100 || kept > 200 || out.Text != linesText(100)[out.Dropped:] {
		t.Errorf("%+v, total %d", out, total)
	}
	if past := s.Output(1<<40, 10); past.From != total || past.Text != "" {
		t.Errorf("past the end: %+v", past)
	}
	none := newDriver(t, Options{LogBytes: -1})
	s2, err := none.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	if out := s2.Output(0, 10); !out.Done || out.Text != "" {
		t.Errorf("no log: %+v", out)
	}
}
