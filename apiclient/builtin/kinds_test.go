package builtin_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"testing"
)

// kinds holds every type of the package with a Resource method, so that the
// schema checks and the tests below see a kind as soon as it is added.
func TestKinds_lists_every_TypedObject(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, f := range pkgs["builtin"].Files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "Resource" || fn.Recv == nil {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				declared = append(declared, star.X.(*ast.Ident).Name)
			}
		}
	}
	var listed []string
	for _, k := range kinds {
		listed = append(listed, reflect.TypeOf(k).Elem().Name())
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Fatalf("the package declares the kinds\n%q\nkinds lists\n%q", declared, listed)
	}
}

// An apply names only the fields the controller set: every type reachable
// from a kind encodes to {} when zero (a kind to its empty metadata), which
// holds only when every field is omitempty, or omitzero for a struct value.
func TestKinds_a_zero_value_sends_nothing(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type)
	visit = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || typ.PkgPath() != reflect.TypeOf(kinds[0]).Elem().PkgPath() {
			return
		}
		seen[typ] = true
		if typ.Implements(reflect.TypeFor[json.Marshaler]()) {
			return // IntOrString: not an object; its fields are omitzero (the schema check reads them)
		}
		b, err := json.Marshal(reflect.New(typ).Interface())
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		want := "{}"
		if _, ok := typ.FieldByName("ObjectMeta"); ok {
			want = `{"metadata":{}}`
		}
		if string(b) != want {
			t.Errorf("a zero %s encodes to %s, want %s", typ.Name(), b, want)
		}
		for i := range typ.NumField() {
			visit(typ.Field(i).Type)
		}
	}
	for _, k := range kinds {
		visit(reflect.TypeOf(k).Elem())
	}
	if len(seen) < 50 {
		t.Fatalf("visited only %d types", len(seen))
	}
}
