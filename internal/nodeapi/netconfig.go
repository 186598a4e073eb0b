package nodeapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/utils/constants"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/components/gas"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/validators/fee"

	"github.com/avaindex/avaindex/internal"
)

// The fee and staking configuration a node answers (platform.getFeeConfig,
// getValidatorFeeConfig, getMinStake, avm.getTxFee) is its network's
// built-in one on mainnet and Fuji, where avalanchego ignores the flags
// that would change it (config.getTxFeeConfig, getStakingConfig). On any
// other network the node's flags decide, which avaindex cannot see, so
// these calls go to the node (see ConfigForwarded).

// fixedConfig reports whether network's configuration is built into
// avalanchego, and returns it.
func fixedConfig(network *internal.Network) (genesis.TxFeeConfig, genesis.StakingConfig, bool) {
	if network == nil || (network.ID != constants.MainnetID && network.ID != constants.FujiID) {
		return genesis.TxFeeConfig{}, genesis.StakingConfig{}, false
	}
	return genesis.GetTxFeeConfig(network.ID), genesis.GetStakingConfig(network.ID), true
}

// errConfigIsNodes answers a configuration call that reached the store's
// service on a network whose configuration only the node knows (a batch,
// which is never forwarded in part).
func errConfigIsNodes(method string, network *internal.Network) error {
	name := "unknown"
	if network != nil {
		name = network.Name
	}
	return fmt.Errorf("%s on network %s is the node's configuration: call it alone, not in a batch, to have it forwarded", method, name)
}

// ConfigForwarded returns, for the route of service ("platform" or "avm"),
// the calls avaindex serves that go to the node all the same on network:
// the configuration calls off mainnet and Fuji, and getMinStake for a
// subnet other than the primary network (its TransformSubnetTx's values).
func ConfigForwarded(network *internal.Network) func(method string, params json.RawMessage) bool {
	_, _, fixed := fixedConfig(network)
	return func(method string, params json.RawMessage) bool {
		switch method {
		case "platform.getFeeConfig", "platform.getValidatorFeeConfig", "avm.getTxFee":
			return !fixed
		case "platform.getMinStake":
			if !fixed {
				return true
			}
			var args []platformvm.GetMinStakeArgs // gorilla's params: an array of one
			if err := json.Unmarshal(params, &args); err != nil || len(args) != 1 {
				var one platformvm.GetMinStakeArgs
				if err := json.Unmarshal(params, &one); err != nil {
					return false // the store's service answers the decoding error
				}
				args = []platformvm.GetMinStakeArgs{one}
			}
			return args[0].SubnetID != constants.PrimaryNetworkID
		}
		return false
	}
}

// GetFeeConfig answers the P-chain's dynamic fee configuration.
func (p *Platform) GetFeeConfig(_ *http.Request, _ *struct{}, reply *gas.Config) error {
	cfg, _, ok := fixedConfig(p.network)
	if !ok {
		return errConfigIsNodes("platform.getFeeConfig", p.network)
	}
	*reply = cfg.DynamicFeeConfig
	return nil
}

// GetValidatorFeeConfig answers the P-chain's L1 validator fee configuration.
func (p *Platform) GetValidatorFeeConfig(_ *http.Request, _ *struct{}, reply *fee.Config) error {
	cfg, _, ok := fixedConfig(p.network)
	if !ok {
		return errConfigIsNodes("platform.getValidatorFeeConfig", p.network)
	}
	*reply = cfg.ValidatorFeeConfig
	return nil
}

// GetMinStake answers the primary network's minimum stakes.
func (p *Platform) GetMinStake(_ *http.Request, args *platformvm.GetMinStakeArgs, reply *platformvm.GetMinStakeReply) error {
	_, st, ok := fixedConfig(p.network)
	if !ok || args.SubnetID != constants.PrimaryNetworkID {
		return errConfigIsNodes("platform.getMinStake", p.network)
	}
	reply.MinValidatorStake = avajson.Uint64(st.MinValidatorStake)
	reply.MinDelegatorStake = avajson.Uint64(st.MinDelegatorStake)
	return nil
}

// GetTxFee answers the X-chain's static tx fees.
func (x *AVM) GetTxFee(_ *http.Request, _ *struct{}, reply *avm.GetTxFeeReply) error {
	cfg, _, ok := fixedConfig(x.network)
	if !ok {
		return errConfigIsNodes("avm.getTxFee", x.network)
	}
	reply.TxFee = avajson.Uint64(cfg.TxFee)
	reply.CreateAssetTxFee = avajson.Uint64(cfg.CreateAssetTxFee)
	return nil
}
