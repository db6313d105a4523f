# shellcheck shell=bash disable=SC2034
# shape-programs.sh - sourced by bench/shape.sh: the real programs it
# profiles and their deterministic workloads (docs/accuracy.md, "Profile
# shape against a sampler").
#
# program_setup NAME SIZE DIR writes NAME's input of size SIZE into DIR and
# sets CP (class path), UNDER (the method whose subtree is compared: the
# program's main), JVM_FLAGS and ARGS (the program's command line, run in
# DIR); it returns 1 with SKIP_REASON set when a jar is missing. Inputs come
# from a fixed linear congruential generator, so every run of a size reads
# the same bytes. Sizes are the units each program scales by: xalan orders,
# fop document sections, h2 inserted rows, and for "calls" (not a Debian
# program: jcalbench.ShapeCalls, a loop calling an empty method and a leaf)
# thousands of iterations.

JARS=${JARS:-/usr/share/java}

# classpath JAR...: "$JARS/a.jar:$JARS/b.jar"; returns 1 naming the first
# missing one in SKIP_REASON
classpath() {
	CP=""
	for j in "$@"; do
		[ -f "$JARS/$j.jar" ] || {
			SKIP_REASON="$JARS/$j.jar missing"
			return 1
		}
		CP="$CP${CP:+:}$JARS/$j.jar"
	done
}

# xalan: an XSLT report over SIZE orders of 300 customers (keys, Muenchian
# grouping, sorts, sums, format-number, string functions), with xalan's own
# command-line processor (org.apache.xalan.xslt.Process; libxalan2-java).
gen_xalan() {
	awk -v n="$1" 'BEGIN {
		s = 12345
		print "<orders>"
		for (i = 1; i <= n; i++) {
			s = (s * 69069 + 1) % 4294967296; c = int(s / 65536) % 300
			s = (s * 69069 + 1) % 4294967296; r = int(s / 65536)
			printf "<order id=\"%d\" customer=\"c%03d\" region=\"r%d\">", i, c, c % 7
			printf "<item sku=\"s%d\" qty=\"%d\" price=\"%d.%02d\"/>", r % 997, 1 + r % 9, r % 500, r % 100
			printf "<item sku=\"s%d\" qty=\"%d\" price=\"%d.%02d\"/>", int(r / 7) % 997, 1 + int(r / 3) % 5, int(r / 11) % 300, int(r / 13) % 100
			printf "<note>order %d for customer c%03d shipped</note></order>\n", i, c
		}
		print "</orders>"
	}'
}

xalan_xsl() {
	cat <<'EOF'
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:output method="html"/>
<xsl:key name="by-customer" match="order" use="@customer"/>
<xsl:template match="/">
<html><body>
<xsl:for-each select="orders/order[generate-id() = generate-id(key('by-customer', @customer)[1])]">
<xsl:sort select="@region"/><xsl:sort select="@customer"/>
<xsl:variable name="mine" select="key('by-customer', @customer)"/>
<h2><xsl:value-of select="concat(@customer, ' in ', translate(@region, 'r', 'R'))"/></h2>
<p>orders: <xsl:value-of select="count($mine)"/>, items: <xsl:value-of select="sum($mine/item/@qty)"/></p>
<table>
<xsl:for-each select="$mine"><xsl:sort select="item[1]/@price" data-type="number" order="descending"/>
<tr><td><xsl:value-of select="@id"/></td><td><xsl:value-of select="format-number(sum(item/@price), '#,##0.00')"/></td>
<td><xsl:value-of select="substring-before(note, ' for')"/></td><td><xsl:value-of select="string-length(normalize-space(note))"/></td></tr>
</xsl:for-each></table>
</xsl:for-each>
</body></html>
</xsl:template>
</xsl:stylesheet>
EOF
}

# fop: SIZE sections of a generated XSL-FO document (a heading, a justified
# paragraph of 120 words, a bordered 6-row table each) rendered to PDF with
# fop's command line (org.apache.fop.cli.Main; the class path of Debian's
# /usr/bin/fop wrapper).
gen_fop() {
	awk -v n="$1" 'BEGIN {
		s = 777
		print "<?xml version=\"1.0\"?>"
		print "<fo:root xmlns:fo=\"http://www.w3.org/1999/XSL/Format\"><fo:layout-master-set>"
		print "<fo:simple-page-master master-name=\"p\" page-height=\"29.7cm\" page-width=\"21cm\" margin=\"2cm\"><fo:region-body/></fo:simple-page-master>"
		print "</fo:layout-master-set><fo:page-sequence master-reference=\"p\"><fo:flow flow-name=\"xsl-region-body\">"
		for (i = 1; i <= n; i++) {
			printf "<fo:block font-size=\"14pt\" font-weight=\"bold\" space-before=\"8pt\">Section %d</fo:block>\n", i
			printf "<fo:block text-align=\"justify\">"
			for (w = 0; w < 120; w++) {
				s = (s * 69069 + 1) % 4294967296; r = int(s / 65536)
				printf "word%s%d ", substr("abcdefghij", 1 + r % 10, 1 + int(r / 10) % 6), r % 1000
			}
			print "</fo:block>"
			printf "<fo:table table-layout=\"fixed\" width=\"100%%\"><fo:table-column column-width=\"30%%\"/><fo:table-column column-width=\"70%%\"/><fo:table-body>"
			for (k = 0; k < 6; k++) {
				s = (s * 69069 + 1) % 4294967296; r = int(s / 65536)
				printf "<fo:table-row><fo:table-cell border=\"0.5pt solid black\"><fo:block>row %d.%d</fo:block></fo:table-cell>", i, k
				printf "<fo:table-cell border=\"0.5pt solid black\"><fo:block>value %d and some text %d</fo:block></fo:table-cell></fo:table-row>", r % 100000, r % 77
			}
			print "</fo:table-body></fo:table>"
		}
		print "</fo:flow></fo:page-sequence></fo:root>"
	}'
}

# h2: an in-memory database fed by a SQL script with H2's own RunScript
# tool (libh2-java): SIZE single-row INSERT statements (the parser), an
# index, then SIZE/150 rounds of a join with grouping, a correlated
# subquery with LIKE, an UPDATE and a sorted range scan.
gen_h2() {
	awk -v n="$1" 'BEGIN {
		q = sprintf("%c", 39)
		print "CREATE TABLE customer(id INT PRIMARY KEY, name VARCHAR(40), region INT);"
		print "CREATE TABLE orders(id INT PRIMARY KEY, customer INT, qty INT, price DECIMAL(10,2), note VARCHAR(80));"
		print "INSERT INTO customer SELECT X, CONCAT(" q "customer " q ", X), MOD(X, 7) FROM SYSTEM_RANGE(1, 300);"
		s = 4242
		for (i = 1; i <= n; i++) {
			s = (s * 69069 + 1) % 4294967296; r = int(s / 65536)
			printf "INSERT INTO orders VALUES(%d, %d, %d, %d.%02d, %sorder %d note %d%s);\n", i, 1 + r % 300, 1 + int(r / 300) % 9, int(r / 7) % 500, r % 100, q, i, r % 1000, q
		}
		print "CREATE INDEX orders_customer ON orders(customer);"
		for (k = 0; k < n / 150; k++) {
			printf "SELECT c.region, COUNT(*), SUM(o.qty * o.price) FROM orders o JOIN customer c ON o.customer = c.id WHERE o.qty > %d GROUP BY c.region ORDER BY 3 DESC;\n", k % 5
			printf "SELECT name, (SELECT MAX(price) FROM orders WHERE customer = c.id) FROM customer c WHERE name LIKE %s%%%d%%%s ORDER BY name;\n", q, k, q
			printf "UPDATE orders SET qty = qty + 1 WHERE MOD(id, 20) = %d;\n", k % 20
			printf "SELECT UPPER(note), LENGTH(note) FROM orders WHERE id BETWEEN %d AND %d ORDER BY price DESC LIMIT 50;\n", k * 100, k * 100 + 400
		}
	}'
}

program_setup() {
	name=$1 size=$2 dir=$3
	SKIP_REASON=""
	JVM_FLAGS=()
	case $name in
	xalan)
		classpath xalan2 || return 1
		UNDER=org.apache.xalan.xslt.Process.main
		gen_xalan "$size" >"$dir/in.xml"
		xalan_xsl >"$dir/t.xsl"
		ARGS=(org.apache.xalan.xslt.Process -IN in.xml -XSL t.xsl -OUT out.html)
		;;
	fop)
		classpath commons-io serializer xalan2 xml-apis batik-all commons-logging xercesImpl \
			xmlgraphics-commons xml-apis-ext fontbox2 fop || return 1
		UNDER=org.apache.fop.cli.Main.main
		gen_fop "$size" >"$dir/doc.fo"
		JVM_FLAGS=(-Djava.awt.headless=true -Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.NoOpLog)
		ARGS=(org.apache.fop.cli.Main -fo doc.fo -pdf out.pdf)
		;;
	h2)
		classpath h2 || return 1
		UNDER=org.h2.tools.RunScript.main
		gen_h2 "$size" >"$dir/w.sql"
		ARGS=(org.h2.tools.RunScript -url jdbc:h2:mem:shape -script w.sql)
		;;
	calls)
		[ "$size" -gt 0 ] || {
			SKIP_REASON="no workload in this mode"
			return 1
		}
		CP=$PWD/build/bench
		UNDER=jcalbench.ShapeCalls.main
		ARGS=(jcalbench.ShapeCalls "${size}000")
		;;
	*)
		SKIP_REASON="unknown program $name"
		return 1
		;;
	esac
}
