package sanitize

// Profile selects what a Sanitizer lets through.
type Profile uint8

const (
	// Viewer is the profile for read-only mirrors and the zero value: text,
	// styling, cursor movement, display modes and validated titles and
	// hyperlinks.
	Viewer Profile = iota
	// Driver is Viewer plus the input-generating modes the one terminal whose
	// keys are forwarded to the program needs: mouse tracking and its
	// encodings (?1000, ?1002, ?1003, ?1005, ?1006, ?1015), focus events
	// (?1004), bracketed paste (?2004) and the application keypad (ESC =).
	// It still passes no query of any kind.
	Driver
)

// Defaults applied where an Options field is zero or negative.
const (
	defaultCols        = 80
	defaultRows        = 24
	defaultCSIBytes    = 256
	defaultCSIParams   = 32
	defaultTitleBytes  = 1 << 10
	defaultURIBytes    = 2 << 10
	defaultStringBytes = 64 << 10

	maxCSIParams = 1024 // upper bound on Options.MaxCSIParams
	maxCount     = 1000 // clamp for every count except REP's
	linkSlack    = 256  // room for OSC 8 parameters on top of MaxURIBytes
)

// Options configures a Sanitizer. New copies it; the zero value is the Viewer
// profile with the default limits and no callbacks.
type Options struct {
	// Profile selects the allowlist. Zero is Viewer.
	Profile Profile

	// OnTitle, if non-nil, is called with every window title (OSC 0, 1 or 2)
	// that passes, made safe for display by UIString. It runs synchronously
	// inside Append and must not call back into the Sanitizer. Nil: no call.
	OnTitle func(title string)

	// OnClipboard, if non-nil, is called with the decoded text of every OSC
	// 52 clipboard write, made safe for display by UIString. The sequence
	// itself never passes, and clipboard reads ("?") are ignored. It runs
	// synchronously inside Append and must not call back into the
	// Sanitizer. Nil: OSC 52 is discarded without being buffered.
	OnClipboard func(text string)

	// Cols and Rows are the viewer's screen size; REP (CSI Ps b) repeats at
	// most Cols*Rows characters. Zero means 80 and 24. SetSize changes them
	// on a live Sanitizer.
	Cols, Rows int

	// MaxCSIBytes caps a control sequence's length in its 7-bit form, from
	// ESC [ to the final byte; longer ones are dropped. Zero means 256.
	MaxCSIBytes int

	// MaxCSIParams caps the number of parameters and sub-parameters of a
	// control sequence; more are dropped whole. Zero means 32; values above
	// 1024 are lowered to 1024.
	MaxCSIParams int

	// MaxTitleBytes caps the text of a title; longer titles are dropped.
	// Zero means 1024.
	MaxTitleBytes int

	// MaxURIBytes caps the URI of an OSC 8 hyperlink; longer links are
	// dropped. Zero means 2048.
	MaxURIBytes int

	// MaxStringBytes caps any buffered string (an OSC 52 payload, and the
	// title and URI caps above); longer strings are dropped. Zero means
	// 65536.
	MaxStringBytes int
}

// withDefaults returns o with every zero or negative limit replaced by its
// default and the string caps bounded by MaxStringBytes.
func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Cols, defaultCols)
	def(&o.Rows, defaultRows)
	def(&o.MaxCSIBytes, defaultCSIBytes)
	def(&o.MaxCSIParams, defaultCSIParams)
	def(&o.MaxTitleBytes, defaultTitleBytes)
	def(&o.MaxURIBytes, defaultURIBytes)
	def(&o.MaxStringBytes, defaultStringBytes)
	o.MaxCSIParams = min(o.MaxCSIParams, maxCSIParams)
	o.MaxTitleBytes = min(o.MaxTitleBytes, o.MaxStringBytes)
	o.MaxURIBytes = min(o.MaxURIBytes, o.MaxStringBytes)
	return o
}

// A Sanitizer filters one terminal output stream. It keeps the parser state
// of an unfinished sequence, string or UTF-8 rune between calls, so any
// split of the input gives the same output. Create one with New; the zero
// value is not usable. Not safe for concurrent use; use one per stream.
type Sanitizer struct {
	opt    Options
	maxREP int32

	state   state
	u8      utf8State
	lastBEL bool // the last byte emitted was BEL (BELs are coalesced)

	// Escape and control sequence being parsed.
	prefix byte  // CSI private marker (< = > ?), 0 if none
	inter  byte  // first intermediate byte, 0 if none
	ninter uint8 // number of intermediate bytes, saturating
	colon  bool  // a ':' separator was seen
	seqLen int   // bytes of the sequence in 7-bit form so far
	nfield int   // parameters so far; 0 if no parameter byte was seen
	fields []int32
	seps   []byte // seps[i] is the separator before fields[i], i ≥ 1

	// Operating system command being parsed.
	oscPending bool // an OSC was ended by ESC; ESC \ will dispatch it
	osc        oscKind
	oscNum     int
	oscDigits  int
	oscLimit   int
	buf        []byte
}

// New returns a Sanitizer for one stream, configured by opts.
func New(opts Options) *Sanitizer {
	o := opts.withDefaults()
	s := &Sanitizer{
		opt:    o,
		fields: make([]int32, o.MaxCSIParams),
		seps:   make([]byte, o.MaxCSIParams),
	}
	s.SetSize(o.Cols, o.Rows)
	return s
}

// SetSize sets the viewer's screen size that bounds REP's count. Zero or
// negative values mean 80 and 24.
func (s *Sanitizer) SetSize(cols, rows int) {
	if cols <= 0 {
		cols = defaultCols
	}
	if rows <= 0 {
		rows = defaultRows
	}
	s.opt.Cols, s.opt.Rows = cols, rows
	s.maxREP = int32(min(cols*rows, 1<<30))
}

// Flush ends the stream: whatever is pending (an unfinished sequence or
// string, a partial UTF-8 rune) is dropped, as the policy drops everything
// unterminated at the end of a stream. The Sanitizer can be used again.
func (s *Sanitizer) Flush() {
	s.state = stGround
	s.u8 = utf8State{}
	s.oscPending = false
	s.buf = s.buf[:0]
}

// Reset returns the Sanitizer to its initial state, keeping its options and
// screen size.
func (s *Sanitizer) Reset() {
	s.Flush()
	s.lastBEL = false
}
