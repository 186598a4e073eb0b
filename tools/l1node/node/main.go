// Command node is an avalanchego v1.14.0 node, the one that runs the
// subnet-evm plugin (see package l1node for why not the main module's
// avalanchego).
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/ava-labs/avalanchego/app"
	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/version"
	"github.com/ava-labs/coreth/plugin/evm"
	"github.com/spf13/pflag"
)

func main() {
	// The C-chain's libevm extras must be registered before any chain runs.
	evm.RegisterAllLibEVMExtras()

	v, err := config.BuildViper(config.BuildFlagSet(), os.Args[1:])
	if errors.Is(err, pflag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "node: flags: %v\n", err)
		os.Exit(1)
	}
	if v.GetBool(config.VersionKey) {
		fmt.Println(version.GetVersions().String())
		return
	}
	cfg, err := config.GetNodeConfig(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "node: config: %v\n", err)
		os.Exit(1)
	}
	n, err := app.New(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "node: start: %v\n", err)
		os.Exit(1)
	}
	os.Exit(app.Run(n))
}
