package admin

import (
	"context"
	"reflect"
	"testing"

	"github.com/gameadmin/admin/internal/engine"
	"github.com/gameadmin/admin/internal/webhook"
)

// TestCompileKeepsEveryField: the declarations a game writes and the
// engine's forms of them have the same fields, and compile carries every
// one across, the game's functions wrapped so that they see what the
// engine hands them.
func TestCompileKeepsEveryField(t *testing.T) {
	pairs := []struct{ root, eng any }{
		{ResourceConfig{}, engine.ResourceConfig{}},
		{ListConfig{}, engine.ListConfig{}},
		{FormConfig{}, engine.FormConfig{}},
		{ShowConfig{}, engine.ShowConfig{}},
		{CreateConfig{}, engine.CreateConfig{}},
		{DefaultsContext{}, engine.DefaultsContext{}},
		{ColumnConfig{}, engine.ColumnConfig{}},
		{RelationConfig{}, engine.RelationConfig{}},
		{Action{}, engine.Action{}},
		{ActionContext{}, engine.ActionContext{}},
		{Options{}, engine.Options{}},
		{GuardOptions{}, engine.GuardOptions{}},
		{SessionOptions{}, engine.SessionOptions{}},
		{RateLimitOptions{}, engine.RateLimitOptions{}},
		{UserColumns{}, engine.UserColumns{}},
		{Relation{}, engine.Relation{}},
		{HealthCheck{}, engine.HealthCheck{}},
		{ResetRequest{}, engine.ResetRequest{}},
		{WebhookOptions{}, webhook.Options{}},
	}
	for _, p := range pairs {
		r, e := reflect.TypeOf(p.root), reflect.TypeOf(p.eng)
		names := map[string]bool{}
		for f := range r.Fields() {
			names[f.Name] = true
		}
		if r.Name() == "GuardOptions" {
			delete(names, "Admin") // the root's own: which panel
		}
		for f := range e.Fields() {
			if !names[f.Name] {
				t.Errorf("engine.%s.%s has no field in admin.%s", e.Name(), f.Name, r.Name())
			}
			delete(names, f.Name)
		}
		for n := range names {
			t.Errorf("admin.%s.%s has no field in engine.%s", r.Name(), n, e.Name())
		}
	}

	var gotDefaults DefaultsContext
	var gotAction ActionContext
	in := ResourceConfig{
		Label: "Guilds", Icon: "team",
		List:   ListConfig{Columns: []string{"name"}, DefaultSort: Sort{Field: "name"}},
		Form:   FormConfig{Fields: []string{"name"}},
		Show:   ShowConfig{Fields: []string{"name"}},
		Create: CreateConfig{Defaults: func(_ context.Context, c DefaultsContext) (map[string]any, error) { gotDefaults = c; return nil, nil }},
		Columns: map[string]ColumnConfig{"name": {Label: "Name", LinkTo: &LinkTo{Resource: "users"}, Hidden: true, ReadOnly: true,
			ReadRole: RoleAdmin, Mask: MaskEmail, Personal: true, Choices: []string{"a"}, UnixTime: UnixMillis}},
		Search:    []string{"name"},
		Relations: map[string]RelationConfig{"members": {Label: "Members"}},
		Actions: []Action{{Name: "disband", Label: "Disband", PerRow: true, LoadRows: true, Confirm: &Confirm{Title: "Sure?"}, Roles: []Role{RoleAdmin},
			Handler: func(_ context.Context, _ map[string]any, c ActionContext) (any, error) {
				gotAction = c
				return nil, nil
			}}},
		Erase:         EraseKeep,
		Policies:      Policies{Delete: Deny()},
		VersionColumn: "version",
		ScopeColumn:   "name",
	}
	out := in.compile()
	nonZero(t, "ResourceConfig", reflect.ValueOf(out))
	nonZero(t, "ColumnConfig", reflect.ValueOf(out.Columns["name"]))
	nonZero(t, "Action", reflect.ValueOf(out.Actions[0]))

	if _, err := out.Create.Defaults(context.Background(), engine.DefaultsContext{OperatorID: "op", Resource: "guilds"}); err != nil {
		t.Fatal(err)
	}
	if gotDefaults != (DefaultsContext{OperatorID: "op", Resource: "guilds"}) {
		t.Errorf("Defaults saw %+v", gotDefaults)
	}
	if _, err := out.Actions[0].Handler(context.Background(), nil, engine.ActionContext{UserID: "u", Role: RoleMod, Resource: "guilds"}); err != nil {
		t.Fatal(err)
	}
	if gotAction.UserID != "u" || gotAction.Role != RoleMod || gotAction.Resource != "guilds" {
		t.Errorf("the handler saw %+v", gotAction)
	}
	if (Action{Name: "x"}).compile().Handler != nil || (ResourceConfig{}).compile().Create.Defaults != nil {
		t.Error("compile made a function where the game wrote none")
	}
}

// TestCompileKeepsEveryOption: every field of Options reaches the engine,
// and the reset callback sees the request the engine hands it.
func TestCompileKeepsEveryOption(t *testing.T) {
	var o Options
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Func:
			if f.Type() == reflect.TypeOf(o.OnResetRequest) {
				continue // set below
			}
			f.Set(reflect.MakeFunc(f.Type(), func([]reflect.Value) []reflect.Value {
				out := make([]reflect.Value, f.Type().NumOut())
				for j := range out {
					out[j] = reflect.Zero(f.Type().Out(j))
				}
				return out
			}))
		default:
			fill(t, v.Type().Field(i).Name, f)
		}
	}
	var got ResetRequest
	o.OnResetRequest = func(_ context.Context, r ResetRequest) error { got = r; return nil }
	out := o.compile()
	nonZero(t, "Options", reflect.ValueOf(out))
	if err := out.OnResetRequest(context.Background(), engine.ResetRequest{Email: "a@x", Invite: true}); err != nil || got.Email != "a@x" || !got.Invite {
		t.Errorf("OnResetRequest saw %+v, %v", got, err)
	}
}

// fill sets v to a value that is not its zero.
func fill(t *testing.T, name string, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint8:
		if v.CanInt() {
			v.SetInt(1)
		} else {
			v.SetUint(1)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(t, name, v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(t, name, e)
		m.SetMapIndex(reflect.ValueOf("k"), e)
		v.Set(m)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, name+"."+v.Type().Field(i).Name, v.Field(i))
			}
		}
	case reflect.Interface:
		switch name {
		case "PasswordHasher":
			v.Set(reflect.ValueOf(DefaultArgon2id()))
		case "Rooms":
			v.Set(reflect.ValueOf(&struct{ Rooms }{}))
		default:
			if v.Type().Implements(reflect.TypeOf((*Limiter)(nil)).Elem()) || v.Type() == reflect.TypeOf((*Limiter)(nil)).Elem() {
				v.Set(reflect.ValueOf(NoLimit{}))
				return
			}
			if v.Type() == reflect.TypeOf((*any)(nil)).Elem() {
				v.Set(reflect.ValueOf(1))
				return
			}
			t.Fatalf("%s: no value to fill an %v with", name, v.Type())
		}
	case reflect.Func:
		// a func inside a struct (a health check's): any non-nil one
		v.Set(reflect.MakeFunc(v.Type(), func([]reflect.Value) []reflect.Value {
			out := make([]reflect.Value, v.Type().NumOut())
			for j := range out {
				out[j] = reflect.Zero(v.Type().Out(j))
			}
			return out
		}))
	default:
		t.Fatalf("%s: no value to fill a %v with", name, v.Kind())
	}
}

// nonZero fails for each field of the struct v left at its zero value.
func nonZero(t *testing.T, what string, v reflect.Value) {
	t.Helper()
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("%s.%s is lost by compile", what, v.Type().Field(i).Name)
		}
	}
}
