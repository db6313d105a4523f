# shape-flat.awk - jcal-post's flat report in CSV (--report flat --format
# csv) to the "VALUE NAME" lines bench/shape-compare.awk reads: the base of
# every method, named as in the report. The method field is quoted when it
# holds a comma (the parameter list that tells overloads apart); the header
# line is skipped.
NR == 1 { next }
{
	if (substr($0, 1, 1) == "\"") {
		i = index($0, "\",")
		name = substr($0, 2, i - 2)
		rest = substr($0, i + 2)
	} else {
		i = index($0, ",")
		name = substr($0, 1, i - 1)
		rest = substr($0, i + 1)
	}
	split(rest, f, ",")
	print f[2], name
}
