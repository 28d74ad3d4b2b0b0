package apitest

import (
	"errors"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// canonicalQuantity is a resource quantity ("0.5", "1024Mi", "129e6") in the
// canonical form kube-apiserver stores and answers (apimachinery's
// resource.Quantity, CanonicalizeBytes): the value is kept exactly (rounded up
// to a nano), written in the format of its suffix — binary (Ki … Ei), decimal
// SI (n … E, none) or a decimal exponent (e3) — with the largest suffix that
// leaves a whole number: "0.5" is "500m", "1024Mi" "1Gi", "1.5Gi" "1536Mi",
// "1000m" "1". A binary quantity under 1024, or not whole, is written as
// decimal SI ("0.5Ki" is "512").
//
// milli rounds up to a thousandth instead, as core/v1's defaulting does to
// every ResourceList (a Pod's requests and limits, a quota's hard).
func canonicalQuantity(s string, milli bool) (string, error) {
	m := quantityForm.FindStringSubmatch(s)
	if m == nil || m[2] == "" && m[3] == "" || strings.Count(m[2]+m[3], ".") > 1 {
		return "", errors.New("not a quantity")
	}
	sign, number, suffix := m[1], m[2]+m[3], m[4]
	if strings.HasSuffix(number, ".") {
		number = strings.TrimSuffix(number, ".")
	}
	value, ok := new(big.Rat).SetString(number)
	if !ok {
		return "", errors.New("not a quantity")
	}
	if sign == "-" {
		value.Neg(value)
	}
	format := "decimal"
	switch {
	case binarySuffix[suffix] > 0:
		format = "binary"
		value.Mul(value, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(binarySuffix[suffix]))))
	case strings.HasPrefix(suffix, "e") || strings.HasPrefix(suffix, "E"):
		format = "exponent"
		e, err := strconv.Atoi(suffix[1:])
		if err != nil {
			return "", errors.New("not a quantity")
		}
		value.Mul(value, pow10(e))
	default:
		e, ok := decimalSuffix[suffix]
		if !ok {
			return "", errors.New("not a quantity")
		}
		value.Mul(value, pow10(e))
	}
	// Precision is a nano at best: finer values round up (away from zero).
	nanos := new(big.Rat).Mul(value, pow10(9))
	n := new(big.Int).Quo(nanos.Num(), nanos.Denom())
	if new(big.Rat).SetInt(n).Cmp(nanos) != 0 {
		if value.Sign() > 0 {
			n.Add(n, big.NewInt(1))
		} else {
			n.Sub(n, big.NewInt(1))
		}
	}
	if unit := big.NewInt(1e6); milli && new(big.Int).Rem(n, unit).Sign() != 0 {
		sign := int64(n.Sign())
		n.Quo(n, unit).Add(n, big.NewInt(sign)).Mul(n, unit)
	}
	if format == "binary" {
		whole := new(big.Int)
		rem := new(big.Int)
		whole.QuoRem(n, big.NewInt(1e9), rem)
		if rem.Sign() == 0 && new(big.Int).Abs(whole).Cmp(big.NewInt(1024)) >= 0 {
			exp := 0
			k := big.NewInt(1024)
			for exp < 6 && new(big.Int).Rem(whole, k).Sign() == 0 {
				whole.Quo(whole, k)
				exp++
			}
			return whole.String() + []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}[exp], nil
		}
		format = "decimal"
	}
	// n is the value in nanos: take thousands off while they are whole.
	exp := -9
	thousand := big.NewInt(1000)
	for n.Sign() != 0 && exp < 18 && new(big.Int).Rem(n, thousand).Sign() == 0 {
		n.Quo(n, thousand)
		exp += 3
	}
	if n.Sign() == 0 {
		exp = 0
	}
	if format == "exponent" {
		if exp == 0 {
			return n.String(), nil
		}
		return n.String() + "e" + strconv.Itoa(exp), nil
	}
	return n.String() + map[int]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}[exp], nil
}

var quantityForm = regexp.MustCompile(`^([+-]?)([0-9]*)(\.?[0-9]*)([eEinumkKMGTP]*[-+]?[0-9]*)$`)

var binarySuffix = map[string]int{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

var decimalSuffix = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

func pow10(e int) *big.Rat {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(e, -e))), nil)
	if e < 0 {
		return new(big.Rat).SetFrac(big.NewInt(1), p)
	}
	return new(big.Rat).SetInt(p)
}
