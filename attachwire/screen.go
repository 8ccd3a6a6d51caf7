package attachwire

// EchoMode is the PTY's termios ECHO flag as a snapshot reports it.
type EchoMode uint8

// Echo modes of format 0x01.
const (
	EchoOff     EchoMode = 0x00
	EchoOn      EchoMode = 0x01
	EchoUnknown EchoMode = 0xFF
)

// Buffer names the screen buffer that is active.
type Buffer uint8

// Buffers of format 0x01.
const (
	BufferPrimary   Buffer = 0
	BufferAlternate Buffer = 1
)

// CursorShape is the cursor style set with DECSCUSR, reduced to its shape.
type CursorShape uint8

// Cursor shapes of format 0x01.
const (
	CursorDefault   CursorShape = 0
	CursorBlock     CursorShape = 1
	CursorUnderline CursorShape = 2
	CursorBar       CursorShape = 3
)

// Modes is the bit set of input-affecting terminal modes a snapshot carries.
type Modes uint8

// Mode bits of format 0x01. The top three bits are reserved and must be 0.
const (
	ModeBracketedPaste Modes = 0x01 // ?2004
	ModeAppCursorKeys  Modes = 0x02 // DECCKM, ?1
	ModePendingWrap    Modes = 0x04 // cursor sits past the last column
	ModeMouse          Modes = 0x08 // some mouse tracking mode is on
	ModeFocus          Modes = 0x10 // ?1004
	modesReserved      Modes = 0xE0
)

// MouseProto packs the mouse tracking mode (low nibble) and the report
// encoding (high nibble). It is 0 unless Modes has ModeMouse.
type MouseProto uint8

// Mouse tracking modes (low nibble of MouseProto).
const (
	MouseX10       MouseProto = 1 // ?1000 (press and release, "normal")
	MouseHighlight MouseProto = 2 // ?1001
	MouseButton    MouseProto = 3 // ?1002
	MouseAny       MouseProto = 4 // ?1003
)

// Mouse report encodings (high nibble of MouseProto).
const (
	MouseEncX10  MouseProto = 0x00
	MouseEncUTF8 MouseProto = 0x10 // ?1005
	MouseEncSGR  MouseProto = 0x20 // ?1006
)

// Tracking returns the tracking mode nibble.
func (m MouseProto) Tracking() MouseProto { return m & 0x0F }

// Encoding returns the encoding nibble.
func (m MouseProto) Encoding() MouseProto { return m & 0xF0 }

// Style is the bit set of cell attributes.
type Style uint8

// Style bits of format 0x01. Bit 0x80 is reserved and must be 0.
const (
	StyleBold          Style = 0x01
	StyleItalic        Style = 0x02
	StyleUnderline     Style = 0x04
	StyleReverse       Style = 0x08
	StyleDim           Style = 0x10
	StyleStrikethrough Style = 0x20
	StyleWideCont      Style = 0x40 // continuation cell of a wide glyph
	styleReserved      Style = 0x80
)

// Color is a cell color: the default color, one of the 256 indexed colors,
// or a 24-bit RGB value. The zero value is the default color. Colors are
// comparable with ==.
type Color uint32

const (
	colorKindShift       = 24
	colorIndexed   Color = 0x01 << colorKindShift
	colorRGB       Color = 0x02 << colorKindShift
	colorKindMask  Color = 0xFF << colorKindShift
	colorValueMask Color = 0x00FFFFFF
)

// ColorKind tells how a Color is encoded on the wire.
type ColorKind uint8

// Color kinds of format 0x01 (the tag byte).
const (
	ColorDefault ColorKind = 0x00
	ColorIndexed ColorKind = 0x01
	ColorRGB     ColorKind = 0x02
)

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

// IndexedColor returns palette color i (0-15 the ANSI colors, 16-255 the
// 256-color cube and grays).
func IndexedColor(i uint8) Color { return colorIndexed | Color(i) }

// RGBColor returns a 24-bit color.
func RGBColor(r, g, b uint8) Color {
	return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// Kind reports how c is encoded.
func (c Color) Kind() ColorKind { return ColorKind(c >> colorKindShift) }

// Index returns the palette index of an indexed color.
func (c Color) Index() uint8 { return uint8(c) }

// RGB returns the components of an RGB color.
func (c Color) RGB() (r, g, b uint8) { return uint8(c >> 16), uint8(c >> 8), uint8(c) }

// Cell is one grid position. Content is the grapheme cluster shown there
// (valid UTF-8 with no C0, DEL or C1 code point); a blank cell is " " with
// style 0 and default colors; a wide glyph's continuation cell has empty
// Content and Style == StyleWideCont with the base cell's colors.
type Cell struct {
	Content string
	Style   Style
	Fg, Bg  Color
}

// BlankCell returns the cell a cleared screen holds: a space in the
// default colors. It is a function so that no caller can change it for
// everyone else.
func BlankCell() Cell { return Cell{Content: " "} }

// Screen is the snapshot model (format 0x01): the visible grids, cursor,
// modes and primary scrollback of a terminal at one point of its stream.
// A Screen is a plain value; it is not safe for concurrent mutation.
type Screen struct {
	Epoch          uint64
	Echo           EchoMode
	Cols, Rows     int
	Active         Buffer
	CursorRow      int // 0-based
	CursorCol      int // 0-based
	CursorVisible  bool
	CursorShape    CursorShape
	Modes          Modes
	Mouse          MouseProto
	SavedCursorRow int // primary screen's restore point while the alternate is active, else the cursor
	SavedCursorCol int
	// Primary holds Rows*Cols cells, row-major.
	Primary []Cell
	// Alt holds Rows*Cols cells when the alternate screen exists, else nil.
	Alt []Cell
	// Scrollback holds the primary screen's scrolled-off lines, oldest
	// first; lines may be shorter or longer than Cols.
	Scrollback [][]Cell
}
