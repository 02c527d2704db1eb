package ops

import (
	"fmt"
	"slices"
)

// OpSpec describes one operation, for generated documentation (the OpenAPI document, the
// README's table of operations).
type OpSpec struct {
	// Name is the op's "op" value, for example "timeline.addEvent".
	Name         string      `json:"name"`
	DocumentType string      `json:"documentType"`
	Summary      string      `json:"summary"`
	Params       []ParamSpec `json:"params"`
}

// ParamSpec describes one parameter of an operation, or one member or element of one.
type ParamSpec struct {
	Name string `json:"name,omitempty"`
	// Type is a JSON Schema type: "string", "integer", "number", "boolean", "array" or
	// "object".
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
	// Enum lists the allowed values, when there are few.
	Enum []string `json:"enum,omitempty"`
	// Items describes the elements of an array, MinItems and MaxItems bound how many (0: no
	// bound).
	Items    *ParamSpec `json:"items,omitempty"`
	MinItems int        `json:"minItems,omitempty"`
	MaxItems int        `json:"maxItems,omitempty"`
	// Fields lists the members of an object.
	Fields []ParamSpec `json:"fields,omitempty"`
}

func param(name, typ string, required bool, description string) ParamSpec {
	return ParamSpec{Name: name, Type: typ, Required: required, Description: description}
}

// Catalog returns every built-in operation, grouped by document type, with its parameters.
// The "op" member itself is not listed among the parameters.
func Catalog() []OpSpec {
	idOf := func(kind string) ParamSpec {
		return param("id", "string", true, "The id of the "+kind+".")
	}
	const dateMsDoc = "Date in milliseconds from 1970-01-01 UTC; negative for earlier dates. |dateMs| at most 2^53-1 (283,458 BCE to 287,396 CE), or beyond that a whole day (a multiple of 86400000) up to 8640000000000000000 (about 273 million years)."
	precision := param("precision", "string", false, "Granularity of the date; default day.")
	precision.Enum = slices.Clone(Precisions)
	return []OpSpec{
		{Name: "animator.setModel", DocumentType: "animator", Summary: "Sets the glTF/GLB model the animator plays.", Params: []ParamSpec{
			param("url", "string", true, fmt.Sprintf("An http(s) URL or a path on this server starting with /, at most %d characters.", maxURL)),
			param("name", "string", false, fmt.Sprintf("A display name for the model, at most %d characters.", maxName)),
		}},
		{Name: "animator.setClips", DocumentType: "animator", Summary: "Replaces the list of animation clips; an active clip no longer listed is cleared.", Params: []ParamSpec{{
			Name: "clips", Type: "array", Required: true,
			Description: fmt.Sprintf("At most %d clips with distinct ids.", maxClips),
			Items: &ParamSpec{Type: "object", Description: "One clip.", Fields: []ParamSpec{
				param("id", "string", true, fmt.Sprintf("The clip's name in the model, 1 to %d characters.", maxClipID)),
			}},
		}}},
		{Name: "animator.setActiveClip", DocumentType: "animator", Summary: "Chooses the clip that plays.", Params: []ParamSpec{
			param("clipId", "string", true, "The id of a clip in the animator's clips list, else unknown_clip."),
		}},

		{Name: "card.rename", DocumentType: "card", Summary: "Sets the card's own name, which wins over the document name in this era.", Params: []ParamSpec{
			param("name", "string", true, fmt.Sprintf("At most %d characters; empty clears it.", maxName)),
		}},
		{Name: "card.setAliases", DocumentType: "card", Summary: "Replaces the card's aliases.", Params: []ParamSpec{{
			Name: "aliases", Type: "array", Required: true,
			Description: fmt.Sprintf("At most %d distinct aliases, each 1 to %d characters.", maxAliases, maxName),
			Items:       &ParamSpec{Type: "string", Description: "One alias."},
		}}},
		{Name: "card.setProperty", DocumentType: "card", Summary: "Sets a property's value, in place if the key exists, else as a new last property.", Params: []ParamSpec{
			param("key", "string", true, fmt.Sprintf("1 to %d characters.", maxKey)),
			param("value", "string", true, fmt.Sprintf("At most %d characters.", maxValue)),
		}},
		{Name: "card.removeProperty", DocumentType: "card", Summary: "Removes the property with the given key.", Params: []ParamSpec{
			param("key", "string", true, "The key of the property."),
		}},
		{Name: "card.addSection", DocumentType: "card", Summary: "Adds a titled text section with a new sec- id.", Params: []ParamSpec{
			param("title", "string", true, fmt.Sprintf("1 to %d characters.", maxTitle)),
			param("body", "string", false, fmt.Sprintf("At most %d characters.", MaxSectionBody)),
			param("index", "integer", false, "Position of the new section, 0 first; default last."),
			param("secret", "boolean", false, "True makes the section secret: seen by the world's owners, admins and editors only; default false."),
		}},
		{Name: "card.updateSection", DocumentType: "card", Summary: "Sets a section's title, body or both; a new body replaces the whole text.", Params: []ParamSpec{
			idOf("section"),
			param("title", "string", false, fmt.Sprintf("1 to %d characters.", maxTitle)),
			param("body", "string", false, fmt.Sprintf("At most %d characters.", MaxSectionBody)),
		}},
		{Name: "card.editSectionText", DocumentType: "card", Summary: "Edits a section's body with splices, rebased over concurrent edits since baseVersion.", Params: []ParamSpec{
			idOf("section"),
			param("baseVersion", "integer", true, "The document version the splices were made on."),
			{
				Name: "splices", Type: "array", Required: true, MinItems: 1, MaxItems: maxSplices,
				Description: fmt.Sprintf("At least one and at most %d splices (and %d in one request), applied in order, each to the text the previous one left. Positions are UTF-16 code units.", maxSplices, maxRequestSplices),
				Items: &ParamSpec{Type: "object", Description: "Delete del units at pos, then insert ins at pos.", Fields: []ParamSpec{
					param("pos", "integer", true, "Position in UTF-16 code units; never inside a surrogate pair."),
					param("del", "integer", false, "Number of UTF-16 code units to delete; default 0."),
					param("ins", "string", false, "Text to insert; default empty."),
				}},
			},
		}},
		{Name: "card.moveSection", DocumentType: "card", Summary: "Moves a section to another position.", Params: []ParamSpec{
			idOf("section"),
			param("index", "integer", true, "The section's position once moved, 0 first."),
		}},
		{Name: "card.removeSection", DocumentType: "card", Summary: "Removes a section.", Params: []ParamSpec{
			idOf("section"),
		}},
		{Name: "card.setSectionSecret", DocumentType: "card", Summary: "Marks a section secret (seen by the world's owners, admins and editors only, never by viewers) or not.", Params: []ParamSpec{
			idOf("section"),
			param("secret", "boolean", true, "True hides the section from viewers; false shows it to every member."),
		}},

		{Name: "folder.setDescription", DocumentType: "folder", Summary: "Sets the folder's description.", Params: []ParamSpec{
			param("description", "string", true, fmt.Sprintf("At most %d characters.", maxDescription)),
		}},

		{Name: "map.setImage", DocumentType: "map", Summary: "Sets the map's image; pins keep their pixel positions, so every pin must fit on it.", Params: []ParamSpec{
			param("url", "string", true, fmt.Sprintf("An http(s) URL or a path on this server starting with /, at most %d characters.", maxURL)),
			param("width", "integer", true, fmt.Sprintf("Width in pixels, 1 to %d.", maxImageSide)),
			param("height", "integer", true, fmt.Sprintf("Height in pixels, 1 to %d.", maxImageSide)),
		}},
		{Name: "map.addPin", DocumentType: "map", Summary: "Places a new pin with a pin- id on the image.", Params: []ParamSpec{
			param("x", "number", true, "Pixels from the left edge, 0 to the image width."),
			param("y", "number", true, "Pixels from the top edge, 0 to the image height."),
			param("label", "string", true, fmt.Sprintf("1 to %d characters.", maxLabel)),
			param("documentId", "string", false, "The id of a document of the same world the pin links to."),
		}},
		{Name: "map.movePin", DocumentType: "map", Summary: "Moves a pin.", Params: []ParamSpec{
			idOf("pin"),
			param("x", "number", true, "Pixels from the left edge, 0 to the image width."),
			param("y", "number", true, "Pixels from the top edge, 0 to the image height."),
		}},
		{Name: "map.updatePin", DocumentType: "map", Summary: "Changes a pin's label, its document link, or both.", Params: []ParamSpec{
			idOf("pin"),
			param("label", "string", false, fmt.Sprintf("1 to %d characters.", maxLabel)),
			param("documentId", "string", false, "The id of a document of the same world; empty removes the link."),
		}},
		{Name: "map.removePin", DocumentType: "map", Summary: "Removes a pin.", Params: []ParamSpec{
			idOf("pin"),
		}},

		{Name: "timeline.addEvent", DocumentType: "timeline", Summary: "Adds a dated event with a new evt- id.", Params: []ParamSpec{
			param("label", "string", true, fmt.Sprintf("1 to %d characters.", maxLabel)),
			param("dateMs", "integer", true, dateMsDoc),
			param("description", "string", false, fmt.Sprintf("At most %d characters.", maxDescription)),
			precision,
		}},
		{Name: "timeline.updateEvent", DocumentType: "timeline", Summary: "Changes any of an event's label, date, description and precision.", Params: []ParamSpec{
			idOf("event"),
			param("label", "string", false, fmt.Sprintf("1 to %d characters.", maxLabel)),
			param("dateMs", "integer", false, dateMsDoc),
			param("description", "string", false, fmt.Sprintf("At most %d characters.", maxDescription)),
			precision,
		}},
		{Name: "timeline.removeEvent", DocumentType: "timeline", Summary: "Removes an event.", Params: []ParamSpec{
			idOf("event"),
		}},
	}
}

// Schema returns the operation as a closed JSON Schema (2020-12): "op" is its name, each
// parameter is typed and described, and no other member is allowed. The OpenAPI document,
// list_types and the MCP apply_content_ops tool all describe ops with it.
func (s OpSpec) Schema() map[string]any {
	props := map[string]any{"op": map[string]any{"const": s.Name}}
	req := []string{"op"}
	for _, p := range s.Params {
		props[p.Name] = p.Schema()
		if p.Required {
			req = append(req, p.Name)
		}
	}
	return map[string]any{"type": "object", "title": s.Name, "description": s.Summary + " (" + s.DocumentType + " documents)",
		"properties": props, "required": req, "additionalProperties": false}
}

// Schema returns the parameter as a JSON Schema.
func (p ParamSpec) Schema() map[string]any {
	s := map[string]any{"type": p.Type}
	if p.Description != "" {
		s["description"] = p.Description
	}
	if len(p.Enum) > 0 {
		s["enum"] = p.Enum
	}
	if p.Items != nil {
		s["items"] = p.Items.Schema()
	}
	if p.MinItems > 0 {
		s["minItems"] = p.MinItems
	}
	if p.MaxItems > 0 {
		s["maxItems"] = p.MaxItems
	}
	if len(p.Fields) > 0 {
		props := map[string]any{}
		var req []string
		for _, f := range p.Fields {
			props[f.Name] = f.Schema()
			if f.Required {
				req = append(req, f.Name)
			}
		}
		s["properties"] = props
		s["additionalProperties"] = false
		if len(req) > 0 {
			s["required"] = req
		}
	}
	return s
}
