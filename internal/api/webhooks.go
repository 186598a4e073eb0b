package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
)

// The Webhooks tag: webhooks belong to the API key that created them (the
// caller, which the server's access layer puts in the request's context);
// a key sees and changes only its own. Events are derived with the blocks
// (derive/webhookevents) and delivered by internal/webhooks.

// WebhookSource is what the webhook endpoints read and change; store.Store
// satisfies it.
type WebhookSource interface {
	CreateWebhook(ctx context.Context, w store.Webhook, addrs []string, limits store.WebhookLimits) error
	Webhook(ctx context.Context, owner, id string) (*store.Webhook, error)
	Webhooks(ctx context.Context, owner, status string, after *store.WebhookKey, limit int) ([]*store.Webhook, error)
	UpdateWebhook(ctx context.Context, owner, id string, u store.WebhookUpdate) (*store.Webhook, error)
	AddWebhookAddresses(ctx context.Context, owner, id string, addrs []string, limits store.WebhookLimits) error
	RemoveWebhookAddresses(ctx context.Context, owner, id string, addrs []string) error
	WebhookAddresses(ctx context.Context, owner, id, after string, limit int) ([]string, int64, error)
	WebhookSecret(ctx context.Context, owner string) (string, error)
	SetWebhookSecret(ctx context.Context, owner, secret string) error
}

// Bounds of a webhook's fields.
const (
	maxWebhookURL         = 2048
	maxWebhookName        = 256
	maxWebhookDescription = 1024
	maxEventSignatures    = 100
	// maxAddressesPerCall bounds one request's addresses; the tier's
	// limit bounds a webhook's.
	maxAddressesPerCall = 10_000
)

func (a *API) webhookLimits(tier string) store.WebhookLimits {
	if a.webhookLimitsOf == nil {
		return store.WebhookLimits{Webhooks: DefaultWebhookLimits.Webhooks, Addresses: DefaultWebhookLimits.Addresses}
	}
	return a.webhookLimitsOf(tier)
}

// DefaultWebhookLimits bound a key's webhooks when the server sets none.
var DefaultWebhookLimits = store.WebhookLimits{Webhooks: 10, Addresses: 10_000}

type addressActivityMetadata struct {
	EventSignatures []string `json:"eventSignatures,omitempty"`
	Addresses       []string `json:"addresses"`
}

type webhookRequest struct {
	EventType          string          `json:"eventType"`
	URL                string          `json:"url"`
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	ChainID            string          `json:"chainId"`
	Network            string          `json:"network"`
	Metadata           json.RawMessage `json:"metadata"`
	IncludeInternalTxs bool            `json:"includeInternalTxs"`
	IncludeLogs        bool            `json:"includeLogs"`
}

type webhookResponse struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	ChainID     string `json:"chainId"`
	Status      string `json:"status"`
	CreatedAt   int64  `json:"createdAt"`
	Name        string `json:"name"`
	Description string `json:"description"`
	EventType   string `json:"eventType"`
	// Metadata is an addressActivityMetadata, platformMetadata or
	// validatorMetadata, by EventType.
	Metadata           any   `json:"metadata"`
	IncludeInternalTxs *bool `json:"includeInternalTxs,omitempty"`
	IncludeLogs        *bool `json:"includeLogs,omitempty"`
	// InactiveReason, beyond the reference, says why an inactive
	// webhook is: deactivated, or its deliveries failed (and how).
	InactiveReason string `json:"inactiveReason,omitempty"`
}

func (a *API) renderWebhook(ctx context.Context, src WebhookSource, w *store.Webhook) (*webhookResponse, error) {
	resp := &webhookResponse{ID: w.ID, URL: w.URL, ChainID: strconv.FormatUint(w.ChainID, 10), Status: w.Status,
		CreatedAt: w.Created.UnixMilli(), Name: w.Name, Description: w.Description, EventType: w.EventType,
		InactiveReason: w.StatusReason}
	if w.Status == store.WebhookActive {
		resp.InactiveReason = ""
	}
	keys := []string{}
	after := ""
	for {
		page, _, err := src.WebhookAddresses(ctx, w.Owner, w.ID, after, 10_000)
		if err != nil {
			return nil, err
		}
		keys = append(keys, page...)
		if len(page) < 10_000 {
			break
		}
		after = page[len(page)-1]
	}
	switch w.EventType {
	case internal.EventPlatformAddressActivity:
		resp.ChainID = w.Filter.ChainName
		resp.Metadata = renderPlatformMetadata(w, keys)
	case internal.EventValidatorActivity:
		resp.ChainID = w.Filter.ChainName
		resp.Metadata = renderValidatorMetadata(w, keys)
	default:
		m := addressActivityMetadata{Addresses: keys}
		for _, s := range w.EventSignatures {
			m.EventSignatures = append(m.EventSignatures, s.Hex())
		}
		resp.Metadata = m
		resp.IncludeInternalTxs, resp.IncludeLogs = &w.IncludeInternalTxs, &w.IncludeLogs
	}
	return resp, nil
}

// webhookAddresses checks a request's addresses: EVM addresses, returned
// lowercase and without repeats.
func webhookAddresses(name string, in []string) ([]string, error) {
	if len(in) > maxAddressesPerCall {
		return nil, derrors.Invalid("%s: %d addresses; one request takes %d at most", name, len(in), maxAddressesPerCall)
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !common.IsHexAddress(s) || !strings.HasPrefix(strings.ToLower(s), "0x") {
			return nil, derrors.Invalid("%s: %s is not an EVM address (0x and 40 hex digits)", name, derrors.Echo(s))
		}
		out = append(out, strings.ToLower(s))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (a *API) webhookURL(ctx context.Context, s string) (string, error) {
	if len(s) > maxWebhookURL {
		return "", derrors.Invalid("url: longer than %d bytes", maxWebhookURL)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", derrors.Invalid("url: %s is not an http(s) URL with a host (and without credentials)", derrors.Echo(s))
	}
	if a.checkWebhookURL != nil {
		if err := a.checkWebhookURL(ctx, u); err != nil {
			return "", derrors.Invalid("url: %s is refused by the outbound rules: %s", derrors.Echo(s), derrors.Echo(err.Error()))
		}
	}
	return u.String(), nil
}

func checkText(name, v string, maxLen int) error {
	if len(v) > maxLen {
		return derrors.Invalid("%s: longer than %d bytes", name, maxLen)
	}
	return nil
}

func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	x := hex.EncodeToString(u[:])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

func newSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ensureSecret gives the owner a shared secret if it has none, so that
// every delivery is signed.
func ensureSecret(ctx context.Context, src WebhookSource, owner string) (string, error) {
	s, err := src.WebhookSecret(ctx, owner)
	if err != nil || s != "" {
		return s, err
	}
	s = newSecret()
	return s, src.SetWebhookSecret(ctx, owner, s)
}

func (a *API) createWebhook(w http.ResponseWriter, r *http.Request) error {
	c, src, err := keyed(r, "webhooks", a.webhooks)
	if err != nil {
		return err
	}
	var body webhookRequest
	if err := DecodeJSONBody(r, &body); err != nil {
		return err
	}
	switch body.EventType {
	case internal.EventAddressActivity, internal.EventPlatformAddressActivity, internal.EventValidatorActivity:
	default:
		return derrors.Invalid("eventType: must be address_activity, primary_network_address_activity or validator_activity; got %s", derrors.Echo(body.EventType))
	}
	if err := checkText("name", body.Name, maxWebhookName); err != nil {
		return err
	}
	if err := checkText("description", body.Description, maxWebhookDescription); err != nil {
		return err
	}
	if len(body.Metadata) == 0 || string(body.Metadata) == "null" {
		return derrors.Invalid("metadata: required, with its keys")
	}
	hook := store.Webhook{ID: newUUID(), Owner: c.KeyID, EventType: body.EventType, Name: body.Name,
		Description: body.Description, Status: store.WebhookActive, Created: time.Now()}
	var keys []string
	switch body.EventType {
	case internal.EventAddressActivity:
		keys, err = a.addressActivityRequest(&body, &hook)
	case internal.EventPlatformAddressActivity:
		keys, err = a.platformRequest(&body, &hook)
	default:
		keys, err = a.validatorRequest(&body, &hook)
	}
	if err != nil {
		return err
	}
	if hook.URL, err = a.webhookURL(r.Context(), body.URL); err != nil {
		return err
	}
	if _, err := ensureSecret(r.Context(), src, c.KeyID); err != nil {
		return err
	}
	if err := src.CreateWebhook(r.Context(), hook, keys, a.webhookLimits(c.Tier)); err != nil {
		return err
	}
	return a.writeWebhookStatus(w, r, src, c, hook.ID, http.StatusCreated)
}

// addressActivityRequest reads an address_activity webhook's chain and
// metadata into hook; it returns its addresses.
func (a *API) addressActivityRequest(body *webhookRequest, hook *store.Webhook) ([]string, error) {
	chainID, err := strconv.ParseUint(body.ChainID, 10, 63)
	if err != nil {
		return nil, derrors.Invalid("chainId: must be the decimal id of an EVM chain; got %s", derrors.Echo(body.ChainID))
	}
	if _, ok := a.chains.ByChainID(chainID); !ok {
		return nil, derrors.Invalid("chainId: %d is not an EVM chain this server indexes", chainID)
	}
	var md addressActivityMetadata
	if err := json.Unmarshal(body.Metadata, &md); err != nil {
		return nil, derrors.Invalid("metadata: must be an object with addresses (strings) and eventSignatures (strings)")
	}
	addrs, err := webhookAddresses("metadata.addresses", md.Addresses)
	if err != nil {
		return nil, err
	}
	if len(md.EventSignatures) > maxEventSignatures {
		return nil, derrors.Invalid("metadata.eventSignatures: %d given, %d at most", len(md.EventSignatures), maxEventSignatures)
	}
	var sigs []common.Hash
	for _, s := range md.EventSignatures {
		b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
		if err != nil || len(b) != common.HashLength {
			return nil, derrors.Invalid("metadata.eventSignatures: %s is not a 32-byte hex topic", derrors.Echo(s))
		}
		sigs = append(sigs, common.BytesToHash(b))
	}
	hook.ChainID, hook.EventSignatures = chainID, sigs
	hook.IncludeLogs, hook.IncludeInternalTxs = body.IncludeLogs, body.IncludeInternalTxs
	return addrs, nil
}

func (a *API) writeWebhook(w http.ResponseWriter, r *http.Request, src WebhookSource, c Caller, id string) error {
	return a.writeWebhookStatus(w, r, src, c, id, http.StatusOK)
}

// writeWebhookStatus writes webhook id with status (201 for a creation,
// as the reference documents).
func (a *API) writeWebhookStatus(w http.ResponseWriter, r *http.Request, src WebhookSource, c Caller, id string, status int) error {
	hook, err := src.Webhook(r.Context(), c.KeyID, id)
	if err != nil {
		return err
	}
	resp, err := a.renderWebhook(r.Context(), src, hook)
	if err != nil {
		return err
	}
	WriteJSON(w, status, resp)
	return nil
}

// webhookCall is the caller, the store and the {id} of a request.
func (a *API) webhookCall(r *http.Request) (Caller, WebhookSource, string, error) {
	c, src, err := keyed(r, "webhooks", a.webhooks)
	if err != nil {
		return c, nil, "", err
	}
	id := r.PathValue("id")
	if len(id) > 64 {
		return c, nil, "", derrors.Missing("no webhook %s", derrors.Echo(id))
	}
	return c, src, id, nil
}

func (a *API) getWebhook(w http.ResponseWriter, r *http.Request) error {
	c, src, id, err := a.webhookCall(r)
	if err != nil {
		return err
	}
	return a.writeWebhook(w, r, src, c, id)
}

func (a *API) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	c, src, err := keyed(r, "webhooks", a.webhooks)
	if err != nil {
		return err
	}
	status, _, err := param.QueryValue(r, "status")
	if err != nil {
		return err
	}
	if status != "" && status != store.WebhookActive && status != store.WebhookInactive {
		return derrors.Invalid("status: must be active or inactive; got %s", derrors.Echo(status))
	}
	spec := listSpec{Op: "listWebhooks", Filters: []string{c.KeyID, status}}
	hooks, next, err := listPage(a, r, spec, func(ctx context.Context, after *store.WebhookKey, limit int) ([]*store.Webhook, error) {
		return src.Webhooks(ctx, c.KeyID, status, after, limit)
	}, func(h *store.Webhook) store.WebhookKey {
		return store.WebhookKey{Created: h.Created.UnixMilli(), ID: h.ID}
	})
	if err != nil {
		return err
	}
	out := struct {
		NextPageToken string             `json:"nextPageToken,omitempty"`
		Webhooks      []*webhookResponse `json:"webhooks"`
	}{NextPageToken: next, Webhooks: []*webhookResponse{}}
	for _, h := range hooks {
		resp, err := a.renderWebhook(r.Context(), src, h)
		if err != nil {
			return err
		}
		out.Webhooks = append(out.Webhooks, resp)
	}
	WriteJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) updateWebhook(w http.ResponseWriter, r *http.Request) error {
	c, src, id, err := a.webhookCall(r)
	if err != nil {
		return err
	}
	var body struct {
		Name               *string `json:"name"`
		Description        *string `json:"description"`
		URL                *string `json:"url"`
		Status             *string `json:"status"`
		IncludeInternalTxs *bool   `json:"includeInternalTxs"`
		IncludeLogs        *bool   `json:"includeLogs"`
	}
	if err := DecodeJSONBody(r, &body); err != nil {
		return err
	}
	u := store.WebhookUpdate{Name: body.Name, Description: body.Description, Status: body.Status,
		IncludeLogs: body.IncludeLogs, IncludeInternalTxs: body.IncludeInternalTxs}
	if body.Name != nil {
		if err := checkText("name", *body.Name, maxWebhookName); err != nil {
			return err
		}
	}
	if body.Description != nil {
		if err := checkText("description", *body.Description, maxWebhookDescription); err != nil {
			return err
		}
	}
	if body.URL != nil {
		v, err := a.webhookURL(r.Context(), *body.URL)
		if err != nil {
			return err
		}
		u.URL = &v
	}
	if body.Status != nil && *body.Status != store.WebhookActive && *body.Status != store.WebhookInactive {
		return derrors.Invalid("status: must be active or inactive; got %s", derrors.Echo(*body.Status))
	}
	if _, err := src.UpdateWebhook(r.Context(), c.KeyID, id, u); err != nil {
		return err
	}
	return a.writeWebhook(w, r, src, c, id)
}

func (a *API) deactivateWebhook(w http.ResponseWriter, r *http.Request) error {
	c, src, id, err := a.webhookCall(r)
	if err != nil {
		return err
	}
	inactive := store.WebhookInactive
	if _, err := src.UpdateWebhook(r.Context(), c.KeyID, id, store.WebhookUpdate{Status: &inactive}); err != nil {
		return err
	}
	return a.writeWebhook(w, r, src, c, id)
}

func (a *API) changeWebhookAddresses(add bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, src, id, err := a.webhookCall(r)
		if err != nil {
			return err
		}
		var body struct {
			Addresses []string `json:"addresses"`
		}
		if err := DecodeJSONBody(r, &body); err != nil {
			return err
		}
		if body.Addresses == nil {
			return derrors.Invalid("addresses: required")
		}
		hook, err := src.Webhook(r.Context(), c.KeyID, id)
		if err != nil {
			return err
		}
		addrs, err := a.webhookKeys(r.Context(), src, hook, body.Addresses, add)
		if err != nil {
			return err
		}
		if add {
			err = src.AddWebhookAddresses(r.Context(), c.KeyID, id, addrs, a.webhookLimits(c.Tier))
		} else {
			err = src.RemoveWebhookAddresses(r.Context(), c.KeyID, id, addrs)
		}
		if err != nil {
			return err
		}
		return a.writeWebhook(w, r, src, c, id)
	}
}

func (a *API) getAddressesFromWebhook(w http.ResponseWriter, r *http.Request) error {
	c, src, id, err := a.webhookCall(r)
	if err != nil {
		return err
	}
	var total int64
	spec := listSpec{Op: "getAddressesFromWebhook", Filters: []string{c.KeyID, id}}
	addrs, next, err := listPage(a, r, spec, func(ctx context.Context, after *string, limit int) ([]string, error) {
		from := ""
		if after != nil {
			from = *after
		}
		page, n, err := src.WebhookAddresses(ctx, c.KeyID, id, from, limit)
		total = n
		return page, err
	}, func(s string) string { return s })
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, struct {
		NextPageToken  string   `json:"nextPageToken,omitempty"`
		Addresses      []string `json:"addresses"`
		TotalAddresses int64    `json:"totalAddresses"`
	}{next, append([]string{}, addrs...), total})
	return nil
}

func (a *API) generateOrRotateSharedSecret(w http.ResponseWriter, r *http.Request) error {
	c, src, err := keyed(r, "webhooks", a.webhooks)
	if err != nil {
		return err
	}
	s := newSecret()
	if err := src.SetWebhookSecret(r.Context(), c.KeyID, s); err != nil {
		return err
	}
	WriteJSON(w, http.StatusCreated, map[string]string{"secret": s})
	return nil
}

func (a *API) getSharedSecret(w http.ResponseWriter, r *http.Request) error {
	c, src, err := keyed(r, "webhooks", a.webhooks)
	if err != nil {
		return err
	}
	s, err := ensureSecret(r.Context(), src, c.KeyID)
	if err != nil {
		return fmt.Errorf("the shared secret: %w", err)
	}
	WriteJSON(w, http.StatusOK, map[string]string{"secret": s})
	return nil
}
