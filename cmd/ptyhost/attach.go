package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// driverAttach is what run needs from a local attach as the driver: frames
// with Output already sanitized (a seq-0 Snapshot first, and again after
// falling behind), io.EOF after Exit, and the driving methods.
type driverAttach interface {
	Next(ctx context.Context) (attachwire.Frame, error)
	WriteInput(p []byte) (int, error)
	Resize(cols, rows, pxW, pxH int) error
	Close() error
}

// subscribeAttach builds a driver attach from a snapshot, a subscription
// and a Driver-profile sanitizer.
type subscribeAttach struct {
	sess *ptyhost.Session
	sub  interface {
		Next(context.Context) (attachwire.Frame, error)
		Close() error
	}
	san     *sanitize.Sanitizer
	pending attachwire.Frame
	buf     []byte
}

func attachDriver(sess *ptyhost.Session) (driverAttach, error) {
	cols, rows := sess.Size()
	a := &subscribeAttach{
		sess: sess,
		san:  sanitize.New(sanitize.Options{Profile: sanitize.Driver, Cols: cols, Rows: rows}),
	}
	if err := a.join(); err != nil {
		return nil, err
	}
	return a, nil
}

// join takes a snapshot, queues it as a seq-0 Snapshot frame and follows
// the frames after it.
func (a *subscribeAttach) join() error {
	scr, at, err := a.sess.Snapshot()
	if err != nil {
		return err
	}
	snap, err := attachwire.NewSnapshot(at, &scr)
	if err != nil {
		return err
	}
	if a.pending, err = snap.Frame(0, 0); err != nil {
		return err
	}
	sub, err := a.sess.Subscribe(at)
	if err != nil {
		return err
	}
	if a.sub != nil {
		a.sub.Close()
	}
	a.sub = sub
	a.san = sanitize.New(sanitize.Options{Profile: sanitize.Driver, Cols: scr.Cols, Rows: scr.Rows})
	return nil
}

func (a *subscribeAttach) Next(ctx context.Context) (attachwire.Frame, error) {
	if a.pending.Type != 0 {
		f := a.pending
		a.pending = attachwire.Frame{}
		return f, nil
	}
	f, err := a.sub.Next(ctx)
	if errors.Is(err, attachwire.ErrRingMiss) {
		if err := a.join(); err != nil {
			return attachwire.Frame{}, fmt.Errorf("resync: %w", err)
		}
		return a.Next(ctx)
	}
	if err != nil || f.Type != attachwire.TypeOutput {
		if f.Type == attachwire.TypeResize {
			if r, err := attachwire.DecodeResize(f.Payload); err == nil {
				a.san.SetSize(int(r.Cols), int(r.Rows))
			}
		}
		return f, err
	}
	a.buf = a.san.Append(a.buf[:0], f.Payload)
	f.Payload = a.buf
	return f, nil
}

func (a *subscribeAttach) WriteInput(p []byte) (int, error) { return a.sess.WriteInput(p) }

func (a *subscribeAttach) Resize(cols, rows, pxW, pxH int) error {
	_, err := a.sess.Resize(cols, rows, pxW, pxH)
	return err
}

func (a *subscribeAttach) Close() error { return a.sub.Close() }
