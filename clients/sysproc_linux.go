package clients

import "syscall"

// sysProcAttr puts the probe in its own process group, so a Ctrl-C at the
// terminal reaches kbf alone and kbf stops the probe in its own time, and
// has the kernel send it SIGTERM should kbf die without stopping it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
