package twmap

import "fmt"

// StandardMap is one official map version (world spec 1.4, net spec
// Appendix D): 0.7.5 clients refuse a map announced under a standard name
// unless its crc and size match one of these.
type StandardMap struct {
	// Name is the official map name.
	Name string
	// CRC and Size identify one official version of the file.
	CRC  uint32
	Size int
}

// StandardMaps lists the official 0.7.x map versions the 0.7.5 client knows.
var StandardMaps = []StandardMap{
	{"ctf1", 0x22bf58cc, 5731},
	{"ctf2", 0x4a5ee326, 24440},
	{"ctf3", 0xa3739d41, 5903},
	{"ctf4", 0xbe7c4db9, 12030},
	{"ctf5", 0x3a1694a7, 10250},
	{"ctf5", 0x20b97905, 10292},
	{"ctf6", 0x28c84351, 26927},
	{"ctf7", 0xec97bf07, 6454},
	{"ctf8", 0x68e543d2, 16091},
	{"dm1", 0x64548818, 6793},
	{"dm2", 0x054b1259, 9601},
	{"dm3", 0x77523f3e, 75957},
	{"dm6", 0x474da235, 7829},
	{"dm7", 0xa0092906, 10910},
	{"dm7", 0xce1484ea, 9685},
	{"dm8", 0x18396d44, 70301},
	{"dm9", 0x51649e61, 8587},
	{"lms1", 0xb2714ade, 11571},
}

// IsStandardName reports whether name is one of the official map names.
func IsStandardName(name string) bool {
	for _, s := range StandardMaps {
		if s.Name == name {
			return true
		}
	}
	return false
}

// CheckStandard returns ErrStandardMap when name is an official map name but
// (crc, size) is not one of its official versions; otherwise nil.
func CheckStandard(name string, crc uint32, size int) error {
	if !IsStandardName(name) {
		return nil
	}
	for _, s := range StandardMaps {
		if s.Name == name && s.CRC == crc && s.Size == size {
			return nil
		}
	}
	return fmt.Errorf("%w: %q has crc %08x and size %d", ErrStandardMap, name, crc, size)
}
