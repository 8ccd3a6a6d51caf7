//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

func watchMode(int) error { return errNoTerminalSupport }
func rawMode(int) error   { return errNoTerminalSupport }
