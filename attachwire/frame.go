package attachwire

// FrameType is the first byte of a frame.
type FrameType uint8

// Frame types of interactive-attach-v1. Every other value is a framing error.
const (
	TypeOutput   FrameType = 0x01
	TypeInput    FrameType = 0x02
	TypeResize   FrameType = 0x03
	TypeMarker   FrameType = 0x04
	TypeExit     FrameType = 0x05
	TypeSnapshot FrameType = 0x06
	TypeControl  FrameType = 0x07
)

// Frame is one carrier message: type, sequence number, microseconds since
// the producer's anchor, and the type's payload. A Frame handed out by a
// host is shared between subscribers and must be treated as immutable.
type Frame struct {
	Type    FrameType
	Seq     uint64
	RelTime uint64
	Payload []byte
}
