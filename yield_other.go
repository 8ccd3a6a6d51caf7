//go:build !linux

package ptyhost

// yieldCPU does nothing here: the measurements behind feedSlice were made
// on Linux's scheduler.
func yieldCPU() {}
