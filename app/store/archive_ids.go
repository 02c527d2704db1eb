package store

// IDLength is the length of every id Loreweave makes (PocketBase's default record ids: 15
// characters of [a-z0-9]).
const IDLength = 15

// isIDByte reports whether c may be part of an id.
func isIDByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// IsID reports whether s has the shape of a Loreweave id.
func IsID(s string) bool {
	if len(s) != IDLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIDByte(s[i]) {
			return false
		}
	}
	return true
}

// RemapIDs returns data with every id of ids (old -> new) replaced by its new id: every
// maximal run of [a-z0-9] exactly IDLength long that is a key of ids. A longer or shorter run
// is never touched, so an id inside a longer word stays. A copied world's JSON (content,
// ops, snapshots, project settings) is remapped with it: ids appear there as link tokens
// ([[id:…]]), parent and document fields, asset URLs (/api/v1/worlds/<world>/assets/<id>/file)
// and tool types' document-link fields, all of which this finds without knowing the shapes.
// New ids have the old ones' length, so the result is as long as data; data is returned as it
// is (not copied) when nothing changes.
func RemapIDs(data []byte, ids map[string]string) []byte {
	if len(ids) == 0 {
		return data
	}
	var out []byte
	for i := 0; i < len(data); {
		if !isIDByte(data[i]) {
			i++
			continue
		}
		j := i
		for j < len(data) && isIDByte(data[j]) {
			j++
		}
		if j-i == IDLength {
			if to, ok := ids[string(data[i:j])]; ok && len(to) == IDLength {
				if out == nil {
					out = append(make([]byte, 0, len(data)), data...)
				}
				copy(out[i:j], to)
			}
		}
		i = j
	}
	if out == nil {
		return data
	}
	return out
}
