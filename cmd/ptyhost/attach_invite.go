package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/ptyhost/ptyhost/internal/link"
	"github.com/ptyhost/ptyhost/issuer"
)

// redeemTimeout bounds the exchange of a short link's invite for a token.
const redeemTimeout = 30 * time.Second

// guestName is the name attach joins by invite under: --name, else $USER.
func guestName(flagName string) string {
	if flagName != "" {
		return flagName
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "guest"
}

// redeemLink exchanges a short link's invite for an attach token at the
// link's relay: 69 when the relay cannot be reached or is no issuer, 77
// when it refuses the invite.
func redeemLink(l link.Link, name string) (string, error) {
	c, err := issuer.NewClient(l.HTTPBase(), nil)
	if err != nil {
		return "", usagef("attach", "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), redeemTimeout)
	defer cancel()
	r, err := c.Redeem(ctx, l.Room, l.Invite, name)
	var ie *issuer.Error
	switch {
	case errors.As(err, &ie) && ie.Code == issuer.CodeBadRequest && ie.Message != "":
		return "", usagef("attach", "%s", ie.Message)
	case errors.As(err, &ie):
		return "", &exitStatus{code: exitRefused, msg: "attach: the relay refused the link: " + ie.Message}
	case err != nil:
		return "", &exitStatus{code: exitUnreachable, msg: "attach: " + err.Error()}
	}
	return r.Token, nil
}
