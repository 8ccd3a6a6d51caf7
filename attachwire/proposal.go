package attachwire

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Input proposals (docs/protocol.md §6, "Input proposals"): input that must
// be approved before it reaches the program. The host is the gate: it
// alone writes to the program, so it announces each proposal to the room
// (Proposal, a host control the relay keeps and passes to every driver and
// viewer), and writes nothing until the pen holder's Decision comes back
// through the relay, which stamps who decided. A relay or viewer that does
// not know these controls ignores them, so no decision ever comes and the
// proposal expires: proposed input never passes a peer that does not
// understand it.

// Bounds on proposals, checked by ValidateProposal and ValidateDecision.
const (
	// MaxProposalText is the most bytes of text one proposal carries: an
	// Input frame's worth.
	MaxProposalText = 64 << 10
	// MaxProposalID is the longest proposal id.
	MaxProposalID = 64
	// MaxProposalReason is the longest reason a decision or a proposal's
	// outcome carries.
	MaxProposalReason = 512
)

// ProposalState is where a proposal stands.
type ProposalState string

// Proposal states: pending until decided, then exactly one of the others.
const (
	ProposalPending  ProposalState = "pending"
	ProposalApproved ProposalState = "approved"
	ProposalEdited   ProposalState = "edited"
	ProposalRejected ProposalState = "rejected"
	ProposalExpired  ProposalState = "expired"
	// ProposalWithdrawn: the proposer gave up waiting (its call was
	// cancelled) or the session ended.
	ProposalWithdrawn ProposalState = "withdrawn"
)

// Done reports whether s is an outcome rather than pending. An unknown
// state counts as done, so a viewer never offers to decide what it does
// not understand.
func (s ProposalState) Done() bool { return s != ProposalPending }

// Proposal ("proposal", host → relay → drivers and viewers) announces input
// waiting for approval, and later its outcome. Text is the input as the
// program would receive it (UTF-8; controls such as "\r" included: a
// viewer shows them visibly, never writes them to a terminal). FromUserID
// and FromName say who proposed it (an agent names itself); ByUserID and
// ByName who decided, on an outcome; Reason is a rejection's reason. While
// pending, ExpiresAt is when the host gives up waiting (unix
// milliseconds); on an approved or edited outcome Text is what was
// written.
type Proposal struct {
	ID         string        `json:"id"`
	State      ProposalState `json:"state"`
	Text       string        `json:"text"`
	FromUserID string        `json:"fromUserId"`
	FromName   string        `json:"fromName,omitempty"`
	ByUserID   string        `json:"byUserId,omitempty"`
	ByName     string        `json:"byName,omitempty"`
	Reason     string        `json:"reason,omitempty"`
	ExpiresAt  uint64        `json:"expiresAt,omitempty"`
}

// Verdict is a decision on a proposal.
type Verdict string

// Verdicts.
const (
	VerdictApprove Verdict = "approve"
	// VerdictEdit approves the decision's Text in place of the proposal's.
	VerdictEdit   Verdict = "edit"
	VerdictReject Verdict = "reject"
)

// Decision ("decide", the pen holder → relay → host) approves, edits or
// rejects the pending proposal ID. Text is the edited input (VerdictEdit
// only); Reason an optional word for the proposer on a rejection. The
// relay passes on only the pen holder's decisions, and sets ByUserID,
// ByConnID and ByName to the decider's token's, whatever the leg sent.
type Decision struct {
	ID       string  `json:"id"`
	Verdict  Verdict `json:"verdict"`
	Text     string  `json:"text,omitempty"`
	Reason   string  `json:"reason,omitempty"`
	ByUserID string  `json:"byUserId,omitempty"`
	ByConnID string  `json:"byConnId,omitempty"`
	ByName   string  `json:"byName,omitempty"`
}

// Propose ("propose", a driver whose token marks its input as needing
// approval → relay → host) asks the host to propose Text on the
// participant's behalf: the host's gate announces it as a Proposal like
// its own agent's. The relay passes on only a proposing driver's, and
// sets FromUserID, FromConnID and FromName from its token, whatever the
// leg sent.
type Propose struct {
	Text       string `json:"text"`
	FromUserID string `json:"fromUserId,omitempty"`
	FromConnID string `json:"fromConnId,omitempty"`
	FromName   string `json:"fromName,omitempty"`
}

// ValidatePropose reports what makes p malformed: empty text, text over
// MaxProposalText or not UTF-8.
func ValidatePropose(p Propose) error {
	if p.Text == "" {
		return fmt.Errorf("attachwire: propose has no text")
	}
	return validProposalText(p.Text, "")
}

// ControlType returns "propose".
func (Propose) ControlType() string { return "propose" }

func (Propose) control() {}

// ControlType returns "proposal".
func (Proposal) ControlType() string { return "proposal" }

// ControlType returns "decide".
func (Decision) ControlType() string { return "decide" }

func (Proposal) control() {}
func (Decision) control() {}

// ValidateProposal reports what makes p one a relay or viewer must not
// pass on: an id that is empty, too long or not printable ASCII, an
// unknown state, text that is not UTF-8 or longer than MaxProposalText,
// an empty pending text, or a reason over MaxProposalReason.
func ValidateProposal(p Proposal) error {
	if err := validProposalID(p.ID); err != nil {
		return err
	}
	switch p.State {
	case ProposalPending, ProposalApproved, ProposalEdited, ProposalRejected, ProposalExpired, ProposalWithdrawn:
	default:
		return fmt.Errorf("attachwire: proposal state %q is unknown", p.State)
	}
	if p.State == ProposalPending && p.Text == "" {
		return fmt.Errorf("attachwire: pending proposal %s has no text", p.ID)
	}
	return validProposalText(p.Text, p.Reason)
}

// ValidateDecision reports what makes d malformed: a bad id, an unknown
// verdict, an edit without text (or text on another verdict), text or a
// reason out of bounds.
func ValidateDecision(d Decision) error {
	if err := validProposalID(d.ID); err != nil {
		return err
	}
	switch d.Verdict {
	case VerdictApprove, VerdictReject:
		if d.Text != "" {
			return fmt.Errorf("attachwire: decision %s: text goes with verdict edit only", d.ID)
		}
	case VerdictEdit:
		if d.Text == "" {
			return fmt.Errorf("attachwire: decision %s: an edit needs the text to write", d.ID)
		}
	default:
		return fmt.Errorf("attachwire: decision verdict %q is unknown", d.Verdict)
	}
	return validProposalText(d.Text, d.Reason)
}

func validProposalID(id string) error {
	if id == "" || len(id) > MaxProposalID {
		return fmt.Errorf("attachwire: proposal id must be 1..%d bytes", MaxProposalID)
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] >= 0x7f {
			return fmt.Errorf("attachwire: proposal id %q is not printable ASCII", id)
		}
	}
	return nil
}

func validProposalText(text, reason string) error {
	switch {
	case len(text) > MaxProposalText:
		return fmt.Errorf("attachwire: proposal text is %d bytes, over %d", len(text), MaxProposalText)
	case !utf8.ValidString(text):
		return fmt.Errorf("attachwire: proposal text is not UTF-8")
	case len(reason) > MaxProposalReason:
		return fmt.Errorf("attachwire: proposal reason is %d bytes, over %d", len(reason), MaxProposalReason)
	}
	return nil
}

// ProposalLabelPrefix starts the Marker label that records a proposal's
// outcome: "proposal <id> <state> …" (docs/protocol.md §6).
const ProposalLabelPrefix = "proposal "

// IsProposalLabel reports whether a Marker label records a proposal's
// outcome, so a viewer that shows the outcome already need not show the
// marker as well.
func IsProposalLabel(label string) bool {
	rest, ok := strings.CutPrefix(label, ProposalLabelPrefix)
	if !ok {
		return false
	}
	id, rest, ok := strings.Cut(rest, " ")
	if !ok || validProposalID(id) != nil {
		return false
	}
	state, _, _ := strings.Cut(rest, " ")
	state, _, _ = strings.Cut(state, ":")
	switch ProposalState(state) {
	case ProposalApproved, ProposalEdited, ProposalRejected, ProposalExpired, ProposalWithdrawn:
		return true
	}
	return false
}

// VisibleInput returns text as a person reading a proposal should see it,
// on one line and safe to print anywhere: Enter (CR) is "⏎", a line feed
// "␤", Tab "⇥", Escape "␛", another control character in caret notation
// ("^C" for 0x03, "^?" for DEL), a C1 control or invalid UTF-8 "�", and a
// format character (a bidi override, a zero-width space: what would make
// the text read otherwise than it types) "<U+202E>". It is cut to about
// max bytes with "…" (max ≤ 0: no cut).
func VisibleInput(text string, max int) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(text, "\uFFFD") {
		if max > 0 && b.Len() >= max {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\r':
			b.WriteString("⏎")
		case r == '\n':
			b.WriteString("␤")
		case r == '\t':
			b.WriteString("⇥")
		case r == 0x1b:
			b.WriteString("␛")
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == 0x7f:
			b.WriteString("^?")
		case r >= 0x80 && r < 0xa0:
			b.WriteRune(utf8.RuneError)
		case unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
