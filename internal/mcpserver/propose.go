package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/approval"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/termdriver"
)

// agentUser is the user id an agent's proposals carry; the name is the
// MCP client's, when it gave one.
const agentUser = "agent"

// propose is type in approval mode: the input waits for a person, and the
// result says what became of it. A rejection or an expiry is a result the
// agent acts on, not a tool error.
func (s *Server) propose(ctx context.Context, req *mcp.CallToolRequest, sess *termdriver.Session, in typeIn, keys []termdriver.Key) (*mcp.CallToolResult, typeOut, error) {
	if _, exited := sess.Host().Exit(); exited {
		return nil, typeOut{}, fmt.Errorf("session %s has exited; its final screen is still readable, stop it when done", in.ID)
	}
	o, err := sess.Propose(ctx, approval.Person{UserID: agentUser, Name: clientName(req)}, in.Text, keys...)
	switch {
	case errors.Is(err, approval.ErrNoApprover):
		hint := "nobody can approve it"
		if s.opts.Sharer != nil {
			hint += ": call share for this session and give a person the drive link"
		}
		return nil, typeOut{}, fmt.Errorf("session %s needs approval for its input and %s", in.ID, hint)
	case errors.Is(err, approval.ErrTooManyPending):
		return nil, typeOut{}, fmt.Errorf("session %s: %d proposals already wait for a decision; wait for them first", in.ID, approval.MaxPending)
	case errors.Is(err, approval.ErrClosed), errors.Is(err, ptyhost.ErrExited):
		return nil, typeOut{}, fmt.Errorf("session %s has exited; nothing was typed", in.ID)
	case err != nil && !o.Written():
		return nil, typeOut{}, err
	}
	out := typeOut{ID: in.ID, Outcome: string(o.State), By: o.By.String(), Reason: o.Reason}
	if o.Written() {
		out.Bytes = len(o.Text)
	}
	var text string
	switch o.State {
	case attachwire.ProposalApproved:
		text = "approved"
		if o.Rule != "" {
			text += " by a rule"
			out.By = "rule " + o.Rule
		} else {
			text += " by " + out.By
		}
		text += ": typed into " + in.ID
	case attachwire.ProposalEdited:
		out.Written = o.Text
		text = fmt.Sprintf("edited by %s: typed %q into %s instead", out.By, o.Text, in.ID)
	case attachwire.ProposalRejected:
		text = fmt.Sprintf("rejected by %s: nothing typed", out.By)
		if o.Reason != "" {
			text += " (" + o.Reason + ")"
		}
	case attachwire.ProposalExpired:
		text = "no decision in time: nothing typed; propose again or ask the person"
	default:
		text = "withdrawn: nothing typed"
	}
	if err != nil {
		return nil, typeOut{}, fmt.Errorf("%s, but writing it failed: %v", text, err)
	}
	return textResult(text), out, nil
}

// clientName is the MCP client's name, as it introduced itself.
func clientName(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		return attachwire.CapMessage(p.ClientInfo.Name)
	}
	return ""
}
