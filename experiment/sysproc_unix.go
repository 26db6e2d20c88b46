//go:build unix

package experiment

import "syscall"

// groupAttr puts --on-ready's command in a process group of its own, so
// the trial's end can end it with everything it started.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup signals the process group led by pid: SIGTERM, or SIGKILL when
// hard.
func killGroup(pid int, hard bool) {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pid, sig) // a group already gone is what was wanted
}
