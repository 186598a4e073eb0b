// Command subnetevm is the subnet-evm v0.8.0 VM as an avalanchego plugin.
// It is installed in the node's --plugin-dir under the VM's id
// (srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy).
//
// subnet-evm's own plugin main raises its open-file limit to 32,768 and
// exits when it cannot; where the hard limit is lower the node then only
// logs "vm process not found". This main serves the same VM and leaves the
// limit as the node set it (--fd-limit).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/ava-labs/avalanchego/version"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm"
	"github.com/ava-labs/subnet-evm/plugin/evm"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Printf("Subnet-EVM/%s [AvalancheGo=%s, rpcchainvm=%d]\n", evm.Version, version.Current, version.RPCChainVMProtocol)
		return
	}
	evm.RegisterAllLibEVMExtras()
	if err := rpcchainvm.Serve(context.Background(), &evm.VM{}); err != nil {
		fmt.Fprintf(os.Stderr, "subnetevm: %v\n", err)
		os.Exit(1)
	}
}
