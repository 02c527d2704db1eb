package apptest

import "github.com/loreweave/loreweave/app/config"

// WithImportLimit sets the largest world archive POST /api/v1/worlds/import takes, in bytes.
func WithImportLimit(n int) Option { return func(c *config.Config) { c.MaxImportBytes = n } }
