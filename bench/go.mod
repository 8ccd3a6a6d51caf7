module github.com/ptyhost/ptyhost/bench

go 1.26.0

require (
	github.com/creack/pty v1.1.24
	github.com/ptyhost/ptyhost v0.0.0-00010101000000-000000000000
	golang.org/x/sys v0.50.0
)

replace github.com/ptyhost/ptyhost => ../
