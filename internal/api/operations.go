package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The Operations tag: transaction exports. postTransactionExportJob
// validates the request and stores it as a RUNNING job, which
// internal/exports runs in the background; getOperationResult tells its
// status and, once it completed, a download link. The link is avaindex's
// own route (downloadOperationFile, not in the reference): it is signed
// with HMAC-SHA256 under a key derived from the page-token key and
// expires, so it needs no API key (a browser or curl can follow it). An
// operation belongs to the API key that created it; an admin key sees
// every key's.

// OperationSource is what the operations read and create; store.Store
// satisfies it.
type OperationSource interface {
	CreateOperation(ctx context.Context, op store.Operation) error
	Operation(ctx context.Context, owner, id string) (*store.Operation, error)
	OperationFile(ctx context.Context, id string, fn func(data []byte) error) error
}

// Bounds of an export request.
const (
	maxExportAddresses = 100
	maxExportChains    = 16
	// defaultExportDays is the range when firstDate is not given.
	defaultExportDays = 365
	// DefaultExportLinkTTL is how long a download link is valid when the
	// server sets no other.
	DefaultExportLinkTTL = time.Hour
)

// stakingTxTypes are the txs of the staking export: those that stake
// and those that pay the stake and rewards back.
var stakingTxTypes = []string{"AddValidatorTx", "AddDelegatorTx", "AddSubnetValidatorTx", "AddPermissionlessValidatorTx",
	"AddPermissionlessDelegatorTx", "RewardValidatorTx", "RemoveSubnetValidatorTx"}

type exportOptions struct {
	Addresses          []string `json:"addresses"`
	CChainEVMAddresses []string `json:"cChainEvmAddresses"`
	IncludeChains      []string `json:"includeChains"`
}

type exportRequest struct {
	Type      string         `json:"type"`
	FirstDate string         `json:"firstDate"`
	LastDate  string         `json:"lastDate"`
	StartDate string         `json:"startDate"`
	EndDate   string         `json:"endDate"`
	Options   *exportOptions `json:"options"`
}

type exportMetadata struct {
	Code        string `json:"code,omitempty"`
	DownloadURL string `json:"downloadUrl,omitempty"`
	NextDate    string `json:"nextDate,omitempty"`
}

type operationResponse struct {
	OperationID        string          `json:"operationId"`
	OperationType      string          `json:"operationType"`
	OperationStatus    string          `json:"operationStatus"`
	Message            string          `json:"message,omitempty"`
	Metadata           *exportMetadata `json:"metadata,omitempty"`
	CreatedAtTimestamp int64           `json:"createdAtTimestamp"`
	UpdatedAtTimestamp int64           `json:"updatedAtTimestamp"`
}

func (a *API) operationStore() (OperationSource, error) {
	if a.operations == nil {
		return nil, derrors.Client(derrors.Unavailable, "operations are not served by this instance")
	}
	return a.operations, nil
}

// exportDate parses a YYYY-MM-DD day of field name.
func exportDate(name, v string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, derrors.Invalid("%s must be a date YYYY-MM-DD, got %s", name, derrors.Echo(v))
	}
	return t, nil
}

// exportRange reads the request's days: firstDate and lastDate, or the
// deprecated startDate and endDate; lastDate is today and firstDate a
// year before it by default.
func exportRange(req *exportRequest, now time.Time) (first, last time.Time, err error) {
	pick := func(name, v, oldName, old string) (string, string, error) {
		switch {
		case v != "" && old != "" && v != old:
			return "", "", derrors.Invalid("%s and its deprecated %s differ: give one", name, oldName)
		case v != "":
			return name, v, nil
		}
		return oldName, old, nil
	}
	lastName, lastV, err := pick("lastDate", req.LastDate, "endDate", req.EndDate)
	if err != nil {
		return first, last, err
	}
	firstName, firstV, err := pick("firstDate", req.FirstDate, "startDate", req.StartDate)
	if err != nil {
		return first, last, err
	}
	last = now.UTC().Truncate(24 * time.Hour)
	if lastV != "" {
		if last, err = exportDate(lastName, lastV); err != nil {
			return first, last, err
		}
	}
	first = last.AddDate(0, 0, 1-defaultExportDays)
	if firstV != "" {
		if first, err = exportDate(firstName, firstV); err != nil {
			return first, last, err
		}
	}
	if first.After(last) {
		return first, last, derrors.Invalid("%s %s is after %s %s", firstName, first.Format(time.DateOnly), lastName, last.Format(time.DateOnly))
	}
	return first, last, nil
}

// exportJob validates req into the job it asks for.
func (a *API) exportJob(req *exportRequest, now time.Time) (string, store.ExportJob, error) {
	var job store.ExportJob
	switch req.Type {
	case store.OpExportEVM, store.OpExportPrimaryNetwork, store.OpExportPrimaryNetworkStaking, store.OpExportPrimaryNetworkSimple:
	case "":
		return "", job, derrors.Invalid("type is required: one of %s, %s, %s, %s", store.OpExportEVM, store.OpExportPrimaryNetwork,
			store.OpExportPrimaryNetworkStaking, store.OpExportPrimaryNetworkSimple)
	default:
		return "", job, derrors.Invalid("type must be one of %s, %s, %s, %s; got %s", store.OpExportEVM, store.OpExportPrimaryNetwork,
			store.OpExportPrimaryNetworkStaking, store.OpExportPrimaryNetworkSimple, derrors.Echo(req.Type))
	}
	if req.Options == nil {
		return "", job, derrors.Invalid("options is required")
	}
	var err error
	if job.First, job.Last, err = exportRange(req, now); err != nil {
		return "", job, err
	}
	o := req.Options
	if len(o.IncludeChains) == 0 {
		return "", job, derrors.Invalid("options.includeChains is required: at least one chain")
	}
	if len(o.IncludeChains) > maxExportChains {
		return "", job, derrors.Invalid("options.includeChains: %d chains; one export takes %d at most", len(o.IncludeChains), maxExportChains)
	}
	if req.Type == store.OpExportEVM {
		if len(o.CChainEVMAddresses) > 0 {
			return "", job, derrors.Invalid("options.cChainEvmAddresses: an EVM export takes its addresses in options.addresses")
		}
		for _, c := range o.IncludeChains {
			n, ok := param.ParseInt(c)
			id := uint64(n)
			if !ok || n <= 0 {
				return "", job, derrors.Invalid("options.includeChains: %s is not an EVM chain id", derrors.Echo(c))
			}
			if _, served := a.chains.ByChainID(id); !served {
				return "", job, derrors.Invalid("options.includeChains: chain %d is not served by this instance", id)
			}
			if !slices.Contains(job.EVMChains, id) {
				job.EVMChains = append(job.EVMChains, id)
			}
		}
		if len(o.Addresses) == 0 {
			return "", job, derrors.Invalid("options.addresses is required: at least one EVM address")
		}
		if job.EVMAddresses, err = exportEVMAddresses("options.addresses", o.Addresses); err != nil {
			return "", job, err
		}
		return req.Type, job, nil
	}
	for _, c := range o.IncludeChains {
		chain, err := a.primaryChain(c)
		if err != nil {
			return "", job, err
		}
		if req.Type == store.OpExportPrimaryNetworkStaking && chain != internal.PChain {
			return "", job, derrors.Invalid("options.includeChains: the staking export covers the P-chain only, not %s", derrors.Echo(c))
		}
		if !slices.Contains(job.Chains, chain) {
			job.Chains = append(job.Chains, chain)
		}
	}
	if len(o.Addresses)+len(o.CChainEVMAddresses) > maxExportAddresses {
		return "", job, derrors.Invalid("options.addresses: %d addresses; one export takes %d at most", len(o.Addresses)+len(o.CChainEVMAddresses), maxExportAddresses)
	}
	for _, s := range o.Addresses {
		ad, err := ParseAddresses("options.addresses", s, 1, a.network.HRP)
		if err != nil {
			return "", job, err
		}
		if len(ad) == 1 && !slices.Contains(job.Addresses, ad[0].ID) {
			job.Addresses = append(job.Addresses, ad[0].ID)
		}
	}
	evms, err := exportEVMAddresses("options.cChainEvmAddresses", o.CChainEVMAddresses)
	if err != nil {
		return "", job, err
	}
	if len(evms) > 0 && !slices.Contains(job.Chains, internal.CChain) {
		return "", job, derrors.Invalid("options.cChainEvmAddresses name the C-chain's atomic txs: add c-chain to options.includeChains")
	}
	for _, e := range evms {
		id := ids.ShortID(common.HexToAddress(e))
		if !slices.Contains(job.Addresses, id) {
			job.Addresses = append(job.Addresses, id)
		}
	}
	if len(job.Addresses) == 0 {
		return "", job, derrors.Invalid("options.addresses is required: at least one address (or options.cChainEvmAddresses)")
	}
	if req.Type == store.OpExportPrimaryNetworkStaking {
		job.TxTypes = stakingTxTypes
	}
	return req.Type, job, nil
}

// primaryChain reads an includeChains value: an alias or the cb58 id of
// one of the indexed network's chains.
func (a *API) primaryChain(v string) (internal.Chain, error) {
	for _, c := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		if v == chainNames[c] || v == a.chainIDs[chainIndex(c)] {
			return c, nil
		}
	}
	return "", derrors.Invalid("options.includeChains: %s is none of p-chain, x-chain, c-chain or their blockchain ids %s", derrors.Echo(v), strings.Join(a.chainIDs[:], ", "))
}

func chainIndex(c internal.Chain) int {
	switch c {
	case internal.XChain:
		return 1
	case internal.CChain:
		return 2
	}
	return 0
}

func exportEVMAddresses(name string, in []string) ([]string, error) {
	if len(in) > maxExportAddresses {
		return nil, derrors.Invalid("%s: %d addresses; one export takes %d at most", name, len(in), maxExportAddresses)
	}
	return webhookAddresses(name, in)
}

// postTransactionExportJob serves postTransactionExportJob.
func (a *API) postTransactionExportJob(w http.ResponseWriter, r *http.Request) error {
	c, src, err := keyed(r, "operations", a.operations)
	if err != nil {
		return err
	}
	var req exportRequest
	if err := DecodeJSONBody(r, &req); err != nil {
		return err
	}
	now := time.Now()
	typ, job, err := a.exportJob(&req, now)
	if err != nil {
		return err
	}
	op := store.Operation{ID: newUUID(), Owner: c.KeyID, Type: typ, Status: store.OpRunning, Job: job, Created: now, Updated: now}
	if err := src.CreateOperation(r.Context(), op); err != nil {
		return err
	}
	WriteJSON(w, http.StatusCreated, a.renderOperation(r, &op))
	return nil
}

// getOperationResult serves getOperationResult.
func (a *API) getOperationResult(w http.ResponseWriter, r *http.Request) error {
	c, src, err := keyed(r, "operations", a.operations)
	if err != nil {
		return err
	}
	id := r.PathValue("operationId")
	if len(id) > 64 {
		return derrors.Invalid("operationId is longer than 64 characters")
	}
	owner := c.KeyID
	if c.Admin {
		owner = ""
	}
	op, err := src.Operation(r.Context(), owner, id)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, a.renderOperation(r, op))
	return nil
}

func (a *API) renderOperation(r *http.Request, op *store.Operation) *operationResponse {
	resp := &operationResponse{OperationID: op.ID, OperationType: op.Type, OperationStatus: op.Status, Message: op.Message,
		CreatedAtTimestamp: op.Created.UnixMilli(), UpdatedAtTimestamp: op.Updated.UnixMilli()}
	switch op.Status {
	case store.OpRunning:
		// The progress: the rows the file holds so far.
		resp.Message = fmt.Sprintf("running: %d rows exported so far", op.Rows)
	case store.OpCompleted, store.OpCompletedWithWarning:
		resp.Metadata = &exportMetadata{Code: op.Code, NextDate: op.NextDate, DownloadURL: a.downloadURL(r, op.ID, time.Now().Add(a.linkTTL))}
	case store.OpFailed:
		resp.Metadata = &exportMetadata{Code: op.Code}
	}
	return resp
}

// linkSignature signs a download link: the operation and the expiry.
func (a *API) linkSignature(id string, expires int64) string {
	m := hmac.New(sha256.New, a.linkKey)
	fmt.Fprintf(m, "operation-download\x00%s\x00%d", id, expires)
	return hex.EncodeToString(m.Sum(nil))
}

// downloadURL is the signed link to op's file, valid until expires, on
// the host the request was sent to.
func (a *API) downloadURL(r *http.Request, id string, expires time.Time) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	q := url.Values{"expires": {strconv.FormatInt(expires.Unix(), 10)}, "signature": {a.linkSignature(id, expires.Unix())}}
	u := url.URL{Scheme: scheme, Host: r.Host, Path: "/v1/operations/" + url.PathEscape(id) + "/download", RawQuery: q.Encode()}
	return u.String()
}

// downloadOperationFile serves the CSV file of a completed export to the
// holder of a valid link: a tampered link is refused (403), an expired
// one gone (410).
func (a *API) downloadOperationFile(w http.ResponseWriter, r *http.Request) error {
	src, err := a.operationStore()
	if err != nil {
		return err
	}
	id := r.PathValue("operationId")
	if len(id) > 64 {
		return derrors.Invalid("operationId is longer than 64 characters")
	}
	exp, ok, err := param.OptionalUint(r, "expires")
	if err != nil {
		return err
	}
	if !ok {
		return derrors.Invalid("expires is required: use the downloadUrl getOperationResult answers")
	}
	sig, ok, err := param.QueryValue(r, "signature")
	if err != nil {
		return err
	}
	if !ok {
		return derrors.Invalid("signature is required: use the downloadUrl getOperationResult answers")
	}
	if !hmac.Equal([]byte(sig), []byte(a.linkSignature(id, exp))) {
		return derrors.Client(derrors.PermissionDenied, "signature does not match the link: use the downloadUrl getOperationResult answers")
	}
	if time.Now().Unix() > exp {
		return derrors.Client(derrors.Gone, "the download link expired at %s: ask getOperationResult for a new one", time.Unix(exp, 0).UTC().Format(time.RFC3339))
	}
	op, err := src.Operation(r.Context(), "", id)
	if err != nil {
		return err
	}
	if op.Status != store.OpCompleted && op.Status != store.OpCompletedWithWarning {
		return derrors.Missing("operation %s has no file: it is %s", derrors.Echo(id), op.Status)
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+op.ID+`.csv"`)
	h.Set("Content-Length", strconv.FormatInt(op.Bytes, 10))
	h.Set("Cache-Control", "private, no-store")
	started := false
	err = src.OperationFile(r.Context(), op.ID, func(data []byte) error {
		if !started {
			started = true
			w.WriteHeader(http.StatusOK)
		}
		_, err := w.Write(data)
		return err
	})
	if err != nil && started {
		panic(http.ErrAbortHandler) // the client must not take a cut file for a whole one
	}
	if err == nil && !started {
		w.WriteHeader(http.StatusOK)
	}
	return err
}

// linkKey derives the download links' key from the page-token key: one
// secret kept in the store, and a link never verifies as a page token.
func linkKey(tokenKey []byte) []byte {
	m := hmac.New(sha256.New, tokenKey)
	m.Write([]byte("avaindex operation download links"))
	return m.Sum(nil)
}
