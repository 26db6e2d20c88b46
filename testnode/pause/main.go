// Command pause is the pod sandbox's process for the test node that testnode/node.sh brings up: it
// holds the pod's namespaces and does nothing else. The node pulls no image, so node.sh builds
// this static binary and imports it into its containerd as an image of one file.
//
// With shareProcessNamespace it is the pod's PID 1, so it reaps the orphans that the pod's
// containers leave; and because it, not the broker's JVM, is then PID 1, a SIGKILL sent to the
// JVM from inside the pod reaches it (the kernel drops signals sent to a namespace's init from
// inside the namespace).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 8)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
