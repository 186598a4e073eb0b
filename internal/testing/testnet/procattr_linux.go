package testnet

import "syscall"

// childAttrs makes the kernel send SIGTERM to the node when the thread that
// started it dies, so a crashed or killed test process does not leave an
// orphaned node behind. The node is started from a goroutine locked to its
// OS thread for the node's whole life (see startProcess).
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
