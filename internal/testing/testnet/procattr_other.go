//go:build !linux

package testnet

import "syscall"

func childAttrs() *syscall.SysProcAttr { return nil }
