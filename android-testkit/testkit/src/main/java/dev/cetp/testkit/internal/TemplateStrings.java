package dev.cetp.testkit.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The template's string resources as the source files have them ({@code
 * android-template/src/main/res/values*}{@code /strings.xml}): per language, every {@code
 * <string>} and every {@code <plurals>} item, with aapt's escapes resolved.
 */
public final class TemplateStrings {
  private TemplateStrings() {}

  /** A format argument as {@code String.format} reads it: {@code %1$s}, {@code %2$d}. */
  private static final Pattern ARGUMENT = Pattern.compile("%(\\d+\\$)?[-#+ 0,(]*\\d*(\\.\\d+)?[a-zA-Z%]");

  /** One resource: a string (quantity {@code ""}) or the items of a plurals, by quantity. */
  public static final class Entry {
    /** The resource name. */
    public final String name;
    /** Whether it is a {@code <plurals>}. */
    public final boolean plurals;
    /** Its text per quantity ({@code other} for a plain string). */
    public final Map<String, String> byQuantity = new LinkedHashMap<>();

    Entry(String name, boolean plurals) {
      this.name = name;
      this.plurals = plurals;
    }

    /** The string's text, or the plurals' {@code other} item. */
    public String text() {
      return plurals ? byQuantity.get("other") : byQuantity.get("");
    }
  }

  /** {@code android-template/src/main/res}. */
  public static Path res() {
    Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("android-template"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no android-template above " + System.getProperty("user.dir"));
    }
    return dir.resolve("android-template/src/main/res");
  }

  /** The qualifiers of every translation ({@code de}, {@code pt-rBR}, ...), sorted. */
  public static List<String> languages() throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(res())) {
      dirs.filter(d -> d.getFileName().toString().startsWith("values-"))
          .filter(d -> Files.isRegularFile(d.resolve("strings.xml")))
          .map(d -> d.getFileName().toString().substring("values-".length()))
          .sorted()
          .forEach(out::add);
    }
    return out;
  }

  /** The default (English) resources. */
  public static Map<String, Entry> english() throws Exception {
    return read(res().resolve("values/strings.xml").toFile());
  }

  /** The resources of the translation with {@code qualifier}. */
  public static Map<String, Entry> of(String qualifier) throws Exception {
    return read(res().resolve("values-" + qualifier + "/strings.xml").toFile());
  }

  /** Every English text (strings and plurals items), as written. */
  public static Set<String> englishTexts() throws Exception {
    Set<String> out = new TreeSet<>();
    for (Entry e : english().values()) {
      out.addAll(e.byQuantity.values());
    }
    return out;
  }

  /** The format arguments of {@code text}, e.g. {@code [%1$s, %2$d]}. */
  public static Set<String> arguments(String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = ARGUMENT.matcher(text);
    while (m.find()) {
      out.add(m.group());
    }
    return out;
  }

  static Map<String, Entry> read(File file) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Element root = f.newDocumentBuilder().parse(file).getDocumentElement();
    Map<String, Entry> out = new LinkedHashMap<>();
    for (Node n = root.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (!(n instanceof Element)) {
        continue;
      }
      Element e = (Element) n;
      String name = e.getAttribute("name");
      Entry entry;
      if (e.getTagName().equals("string")) {
        entry = new Entry(name, false);
        entry.byQuantity.put("", unescape(e.getTextContent()));
      } else if (e.getTagName().equals("plurals")) {
        entry = new Entry(name, true);
        NodeList items = e.getElementsByTagName("item");
        for (int i = 0; i < items.getLength(); i++) {
          Element item = (Element) items.item(i);
          if (entry.byQuantity.put(item.getAttribute("quantity"), unescape(item.getTextContent()))
              != null) {
            throw new AssertionError(file + ": " + name + " has quantity "
                + item.getAttribute("quantity") + " twice");
          }
        }
      } else {
        continue;
      }
      if (out.put(name, entry) != null) {
        throw new AssertionError(file + ": " + name + " is defined twice");
      }
    }
    return out;
  }

  /** aapt's string escapes: {@code \'}, {@code \"}, {@code \n}, {@code \t}, {@code \\}. */
  static String unescape(String raw) {
    StringBuilder value = new StringBuilder();
    for (int j = 0; j < raw.length(); j++) {
      char c = raw.charAt(j);
      if (c == '\\' && j + 1 < raw.length()) {
        char next = raw.charAt(++j);
        value.append(next == 'n' ? '\n' : next == 't' ? '\t' : next);
      } else {
        value.append(c);
      }
    }
    return value.toString();
  }
}
