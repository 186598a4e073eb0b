package api

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestICMWithoutEVMChains: with no EVM chain served, a message is a 404
// and the lists are empty; bad parameters are 400s naming them.
func TestICMWithoutEVMChains(t *testing.T) {
	a, err := New(Deps{Store: &fakeSource{}, Network: testNet, TokenKey: bytes.Repeat([]byte{7}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	id := strings.Repeat("ab", 32)
	for _, prefix := range []string{"/v1/icm", "/v1/teleporter"} {
		getError(t, mux, prefix+"/messages/"+id, 404, "no ICM message "+id)
		getError(t, mux, prefix+"/messages/0x"+id, 404, "no ICM message "+id)
		getError(t, mux, prefix+"/messages/"+id[:10], 400, "messageId must be a 32-byte hex message id")
		var list ListIcmMessagesResponse
		getOK(t, mux, prefix+"/messages", &list)
		getOK(t, mux, prefix+"/addresses/0x0000000000000000000000000000000000000001/messages", &list)
		if len(list.Messages) != 0 {
			t.Errorf("%s: %+v", prefix, list.Messages)
		}
		getError(t, mux, prefix+"/messages?sourceBlockchainId=x", 400, "sourceBlockchainId must be a blockchain id")
		getError(t, mux, prefix+"/messages?destinationBlockchainId=0x12", 400, "destinationBlockchainId must be")
		getError(t, mux, prefix+"/messages?blockchainId=", 400, "blockchainId must be")
		getError(t, mux, prefix+"/messages?from=0xzz", 400, "from must be a 0x-prefixed 20-byte hex address")
		getError(t, mux, prefix+"/messages?to=1", 400, "to must be")
		getError(t, mux, prefix+"/messages?network=nowhere", 400, "network must be one of")
		getError(t, mux, prefix+"/addresses/0x12/messages", 400, "address must be a 0x-prefixed 20-byte hex address")
		getError(t, mux, prefix+"/messages?pageSize=101", 400, "pageSize")
	}
}
