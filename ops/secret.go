package ops

import "encoding/json"

// PublicBatch reports whether a batch of applied ops (as ops.Apply returned them), which
// took a document from before to after, can be shown as it is to someone who may not see
// secret parts (a viewer of the world): it reveals nothing secret, and applied to the
// viewer's public copy of before it gives the public copy of after. When it returns false,
// a viewer is sent the public form of after instead of the ops.
//
// Documents that cannot hold secrets always give true. For cards: renames, aliases and
// properties are safe; an op addressing a section by id is safe when that section is public
// before and after; ops that add, move or remove sections (whose indexes count the secret
// sections too) or mark one public are safe only when neither state has secrets; a section
// added or marked secret, or an op this function does not know, is never safe.
func PublicBatch(before, after Document, applied []json.RawMessage) bool {
	b, okB := before.(*Card)
	a, okA := after.(*Card)
	if !okB || !okA {
		_, sb := before.(Secretive)
		_, sa := after.(Secretive)
		return !sb && !sa
	}
	secrets := b.HasSecrets() || a.HasSecrets()
	secretIn := func(c *Card, id string) bool {
		i := c.section(id)
		return i >= 0 && c.Sections[i].Secret
	}
	for _, raw := range applied {
		if name, ok := validOpName(raw); ok && alwaysPublic[name] {
			continue // the common case, read without decoding the op
		}
		var op struct {
			Op     string `json:"op"`
			ID     string `json:"id"`
			Secret bool   `json:"secret"`
		}
		if json.Unmarshal(raw, &op) != nil {
			return false
		}
		switch op.Op {
		case "card.updateSection", "card.editSectionText":
			if secretIn(b, op.ID) || secretIn(a, op.ID) {
				return false
			}
		case "card.addSection", "card.setSectionSecret":
			// A section made secret within the batch is unsafe even when the batch then
			// removes it: the ops between may hold its secret text.
			if op.Secret || secrets {
				return false
			}
		case "card.moveSection", "card.removeSection":
			if secrets {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// alwaysPublic are the card ops PublicBatch lets through whatever they address.
var alwaysPublic = map[string]bool{"card.rename": true, "card.setAliases": true, "card.setProperty": true, "card.removeProperty": true}

// CanHoldSecrets reports whether documents of type typ can have secret parts.
func CanHoldSecrets(typ string) bool {
	_, ok := Empty(typ).(Secretive)
	return ok
}

// IsSecretPart reports whether id names a secret part of doc (a card's secret section).
func IsSecretPart(doc Document, id string) bool {
	c, ok := doc.(*Card)
	if !ok {
		return false
	}
	i := c.section(id)
	return i >= 0 && c.Sections[i].Secret
}
