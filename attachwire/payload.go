package attachwire

// Input is the payload of an Input frame. A host drops relay-delivered
// Input whose UserID is empty.
type Input struct {
	InputSeq      uint64
	PenGeneration uint64
	UserID        string
	Data          []byte
}

// Resize is the payload of a Resize frame: an applied size when a host
// sends it (in-namespace), a request when a viewer does (seq 0). Cols and
// Rows are never 0; pixel sizes may be.
type Resize struct {
	Cols, Rows        uint32
	PxWidth, PxHeight uint32
}

// Marker is the payload of a Marker frame: a display-only UTF-8 label.
type Marker struct {
	Label string
}

// Exit is the payload of an Exit frame. A normal exit carries the process's
// code and an empty Signal; a signal death carries 128+signum and the
// signal's name ("SIGKILL").
type Exit struct {
	Code   uint32
	Signal string
}

// Snapshot is the envelope of a Snapshot frame. Screen holds the encoded
// screen in Format (FormatScreenV1 is the only one defined).
type Snapshot struct {
	AtSeq  uint64
	Format uint8
	Screen []byte
}

// FormatScreenV1 is snapshot format 0x01, the Screen model.
const FormatScreenV1 uint8 = 0x01
