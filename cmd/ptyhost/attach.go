package main

import (
	"context"
	"errors"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
)

// driverAttach is what run needs from its local attach: frames with Output
// already sanitized for the driving terminal (a seq-0 Snapshot first, and
// again after falling behind), io.EOF after Exit, and the driving methods.
type driverAttach interface {
	Next(ctx context.Context) (attachwire.Frame, error)
	WriteInput(p []byte) (int, error)
	Resize(cols, rows, pxW, pxH int) (uint64, error)
	Close() error
}

var _ driverAttach = (*ptyhost.LocalAttach)(nil)

// errNotDriver reports that the attach run made is read-only, which only
// happens if something else attached to the session first.
var errNotDriver = errors.New("attach is read-only: another attach drives the session")

// attachDriver joins sess as its driver.
func attachDriver(sess *ptyhost.Session) (driverAttach, error) {
	a, err := sess.AttachLocal(ptyhost.LocalAttachOptions{})
	if err != nil {
		return nil, err
	}
	if !a.CanDrive() {
		a.Close()
		return nil, errNotDriver
	}
	return a, nil
}
