package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"

	"github.com/loreweave/loreweave/app/apierr"
	"github.com/loreweave/loreweave/app/store"
)

// KeyPrefix starts every API key.
const KeyPrefix = "lw_live_"

const (
	keySecretLen   = 32
	keyChecksumLen = 6
	keyLen         = len(KeyPrefix) + keySecretLen + keyChecksumLen
	base62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	// displayLen is how much of a key is kept in clear to tell keys apart in lists.
	displayLen = len(KeyPrefix) + 6
)

// NewKeySecret returns a fresh API key: lw_live_ + 32 random base62 characters + a 6-character
// base62 CRC32 of those 32 characters.
func NewKeySecret() string {
	var b strings.Builder
	b.Grow(keyLen)
	b.WriteString(KeyPrefix)
	max := big.NewInt(int64(len(base62)))
	secret := make([]byte, keySecretLen)
	for i := range secret {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(fmt.Sprintf("auth: crypto/rand failed: %v", err))
		}
		secret[i] = base62[n.Int64()]
	}
	b.Write(secret)
	b.WriteString(checksum(secret))
	return b.String()
}

func checksum(secret []byte) string {
	n := crc32.ChecksumIEEE(secret)
	out := make([]byte, keyChecksumLen)
	for i := keyChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}

// WellFormedKey reports whether s has the shape and checksum of an API key. It lets a typo or
// a stray token be rejected without a database read.
func WellFormedKey(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	body := s[len(KeyPrefix):]
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62, body[i]) < 0 {
			return false
		}
	}
	return checksum([]byte(body[:keySecretLen])) == body[keySecretLen:]
}

// HashKey is the SHA-256 (hex) under which a key is stored; the key itself never is.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Key is an API key as listed in settings (never its secret).
type Key struct {
	ID         string `db:"id" json:"id"`
	UserID     string `db:"user" json:"-"`
	Name       string `db:"name" json:"name"`
	Prefix     string `db:"prefix" json:"prefix"`
	Created    string `db:"created" json:"created"`
	LastUsedAt string `db:"lastUsedAt" json:"lastUsedAt"`
	RevokedAt  string `db:"revokedAt" json:"revokedAt"`
}

// Keys stores and checks API keys.
type Keys struct {
	app core.App

	mu       sync.Mutex
	lastSeen map[string]time.Time // key id -> last lastUsedAt write
	// cache maps a key's hash to its principal for keyCacheTTL. Revocations forget at once
	// (in this process) or when their outbox row arrives (the command line); gen keeps a
	// lookup racing a revocation from caching the key again.
	cache map[string]cachedKey
	gen   uint64
}

type cachedKey struct {
	p  Principal
	at time.Time
}

const keyCacheTTL = time.Minute

// NewKeys returns the key store on app's database.
func NewKeys(app core.App) *Keys {
	return &Keys{app: app, lastSeen: map[string]time.Time{}, cache: map[string]cachedKey{}}
}

// Watch makes the key cache follow revocations made by other processes, and by the
// dashboard: a key record revoked or deleted there counts as revoked at once.
func (k *Keys) Watch(s *store.Store) {
	forget := func(rows []store.OutboxRow) {
		for _, r := range rows {
			if r.Kind == "key.revoked" {
				k.forget(r.Subject)
			}
		}
	}
	s.OnOutbox(forget)
	s.OnRecordChange(keyRows, forget, "api_keys")
}

// keyRows are the outbox rows of a change to an api_keys record (store.RecordRows).
func keyRows(op string, rec *core.Record) []store.OutboxRow {
	revoked := []store.OutboxRow{{Kind: "key.revoked", Subject: rec.Id}}
	switch {
	case op == "delete" || op == "committed":
		return revoked
	case op == "update" && rec.Original().GetString("revokedAt") == "" && rec.GetString("revokedAt") != "":
		return revoked
	}
	return nil
}

// forget drops a key (by id) from the cache.
func (k *Keys) forget(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gen++
	for h, c := range k.cache {
		if c.p.CredentialID == id {
			delete(k.cache, h)
		}
	}
}

// Create makes a new key for userID and returns its secret (shown once) and record.
func (k *Keys) Create(userID, name string) (string, Key, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > 200 {
		return "", Key{}, apierr.Field("name", "a key needs a name of 1 to 200 characters")
	}
	secret := NewKeySecret()
	key := Key{ID: core.GenerateDefaultRandomId(), UserID: userID, Name: name, Prefix: secret[:displayLen], Created: dbTime(time.Now())}
	_, err := k.app.DB().NewQuery(`INSERT INTO api_keys (id, user, name, prefix, hash, lastUsedAt, revokedAt, created)
		VALUES ({:id}, {:user}, {:name}, {:prefix}, {:hash}, '', '', {:created})`).
		Bind(dbx.Params{"id": key.ID, "user": userID, "name": name, "prefix": key.Prefix, "hash": HashKey(secret), "created": key.Created}).
		Execute()
	if err != nil {
		return "", Key{}, fmt.Errorf("auth: create key: %w", err)
	}
	return secret, key, nil
}

const keyCols = "id, user, name, prefix, created, lastUsedAt, revokedAt"

// List returns userID's keys, newest first, revoked ones included.
func (k *Keys) List(userID string) ([]Key, error) {
	keys := []Key{}
	err := k.app.DB().NewQuery("SELECT " + keyCols + " FROM api_keys WHERE user = {:u} ORDER BY created DESC, id").
		Bind(dbx.Params{"u": userID}).All(&keys)
	if err != nil {
		return nil, fmt.Errorf("auth: list keys: %w", err)
	}
	return keys, nil
}

// Get returns one key by id.
func (k *Keys) Get(id string) (Key, error) {
	var key Key
	err := k.app.DB().NewQuery("SELECT " + keyCols + " FROM api_keys WHERE id = {:id}").Bind(dbx.Params{"id": id}).One(&key)
	if err != nil {
		return Key{}, apierr.NotFound("key")
	}
	return key, nil
}

// Revoke revokes a key at once. userID, when not empty, must own the key. It writes an outbox
// row so that a running server (when the CLI revokes) closes the streams that use it.
func (k *Keys) Revoke(userID, id string) error {
	defer k.forget(id)
	return k.app.RunInTransaction(func(tx core.App) error {
		q := "UPDATE api_keys SET revokedAt = {:t} WHERE id = {:id} AND revokedAt = ''"
		p := dbx.Params{"t": dbTime(time.Now()), "id": id}
		if userID != "" {
			q += " AND user = {:u}"
			p["u"] = userID
		}
		res, err := tx.DB().NewQuery(q).Bind(p).Execute()
		if err != nil {
			return fmt.Errorf("auth: revoke key: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.NotFound("active key")
		}
		_, err = store.WriteOutbox(tx.DB(), "key.revoked", "", "", "", id)
		return err
	})
}

// Authenticate returns the principal of a bearer key, or a 401 error. A malformed key or one
// with a bad checksum is rejected without touching the database.
func (k *Keys) Authenticate(secret string) (Principal, error) {
	if !WellFormedKey(secret) {
		return Principal{}, apierr.Unauthenticated("the API key is malformed; copy it again from Settings → API keys")
	}
	hash := HashKey(secret)
	k.mu.Lock()
	c, ok := k.cache[hash]
	gen := k.gen
	k.mu.Unlock()
	if ok && time.Since(c.at) < keyCacheTTL {
		k.touch(c.p.CredentialID)
		return c.p, nil
	}
	var row struct {
		ID        string `db:"id"`
		UserID    string `db:"user"`
		RevokedAt string `db:"revokedAt"`
		Email     string `db:"email"`
		Name      string `db:"name"`
	}
	err := k.app.DB().NewQuery(`SELECT k.id, k.user, k.revokedAt, u.email, u.name FROM api_keys k JOIN users u ON u.id = k.user
		WHERE k.hash = {:hash}`).Bind(dbx.Params{"hash": hash}).One(&row)
	if err != nil || row.RevokedAt != "" {
		return Principal{}, apierr.Unauthenticated("the API key is unknown or revoked")
	}
	p := Principal{UserID: row.UserID, Email: row.Email, Name: row.Name, Kind: KindAPIKey, CredentialID: row.ID}
	k.mu.Lock()
	if gen == k.gen {
		if len(k.cache) > 100_000 {
			k.cache = map[string]cachedKey{}
		}
		k.cache[hash] = cachedKey{p: p, at: time.Now()}
	}
	k.mu.Unlock()
	k.touch(row.ID)
	return p, nil
}

// touch records that a key was used, writing at most once a minute per key.
func (k *Keys) touch(id string) {
	now := time.Now()
	k.mu.Lock()
	last, ok := k.lastSeen[id]
	if ok && now.Sub(last) < time.Minute {
		k.mu.Unlock()
		return
	}
	k.lastSeen[id] = now
	k.mu.Unlock()
	_, err := k.app.DB().NewQuery("UPDATE api_keys SET lastUsedAt = {:t} WHERE id = {:id}").
		Bind(dbx.Params{"t": dbTime(time.Now()), "id": id}).Execute()
	if err != nil {
		k.app.Logger().Warn("auth: record key use", "key", id, "error", err.Error())
	}
}
