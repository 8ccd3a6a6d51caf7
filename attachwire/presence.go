package attachwire

// PresenceMode is what a subscriber says of the presence forms it reads
// (Subscribe.Presence).
type PresenceMode string

// PresenceCounts in a subscribe says the subscriber reads presence_count
// and may send presence_request: in a room past the relay's threshold it
// is sent counts and a bounded list instead of every join and leave
// (docs/protocol.md §6, "Presence in large rooms").
const PresenceCounts PresenceMode = "counts"

// PresenceCount ("presence_count") reports a large room's people to a
// subscriber that asked for PresenceCounts: Total members, and Members, a
// bounded list of who to show (the pen holder first, then the earliest
// to join). Members omitted (nil or empty) means the list shown before
// is still right; the relay never sends an empty list for a room that has
// members. Complete reports that Members is everyone (the answer to a
// PresenceRequest); the next presence_count that carries members replaces
// it. A presence list replaces the counts: the room has become small
// again and join and leave follow.
type PresenceCount struct {
	Total    uint32   `json:"total"`
	Members  []Member `json:"members,omitempty"`
	Complete bool     `json:"complete,omitempty"`
}

// PresenceRequest ("presence_request") asks the relay for the whole
// member list (a driver or viewer leg that subscribed with
// PresenceCounts). It is answered, with the room's next presence update
// at the latest, by a presence_count with Complete set or, in a room
// below the threshold, by a presence list.
type PresenceRequest struct{}

// ControlType returns "presence_count".
func (PresenceCount) ControlType() string { return "presence_count" }

// ControlType returns "presence_request".
func (PresenceRequest) ControlType() string { return "presence_request" }

func (PresenceCount) control()   {}
func (PresenceRequest) control() {}
