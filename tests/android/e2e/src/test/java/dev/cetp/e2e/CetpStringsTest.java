package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.cetp.harness.category.AuthProviderBundle;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The approval screen's English fallback ({@code CetpStrings.ENGLISH}, used where there are no
 * resources, as in host bundles) equals the translatable source {@code
 * android-template/src/main/res/values/strings.xml}, and every string name the screens' classes ask for
 * exists there. Runs where the template classes are on the classpath ({@code
 * bundle-auth-provider}).
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class CetpStringsTest {
  private static final Path TEMPLATE = repoRoot().resolve("android-template/src/main");

  static Path repoRoot() {
    Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("android-template"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no android-template above " + System.getProperty("user.dir"));
    }
    return dir;
  }

  /** strings.xml, with aapt's escapes resolved. */
  static Map<String, String> resources() throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    NodeList nodes =
        f.newDocumentBuilder()
            .parse(TEMPLATE.resolve("res/values/strings.xml").toFile())
            .getElementsByTagName("string");
    Map<String, String> out = new TreeMap<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      Element e = (Element) nodes.item(i);
      String text = e.getTextContent();
      StringBuilder value = new StringBuilder();
      for (int j = 0; j < text.length(); j++) {
        char c = text.charAt(j);
        if (c == '\\' && j + 1 < text.length()) {
          char next = text.charAt(++j);
          value.append(next == 'n' ? '\n' : next == 't' ? '\t' : next);
        } else {
          value.append(c);
        }
      }
      if (out.put(e.getAttribute("name"), value.toString()) != null) {
        throw new AssertionError("duplicate string " + e.getAttribute("name"));
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> fallback() throws Exception {
    Field english = Class.forName("dev.cetp.CetpStrings").getDeclaredField("ENGLISH");
    english.setAccessible(true);
    return new TreeMap<>((Map<String, String>) english.get(null));
  }

  @Test
  public void theEnglishFallbackIsStringsXml() throws Exception {
    Map<String, String> xml = resources();
    assertTrue(xml.size() > 30);
    assertEquals(xml, fallback());
  }

  @Test
  public void everyNameTheScreenUsesIsAResource() throws Exception {
    StringBuilder source = new StringBuilder();
    try (java.util.stream.Stream<Path> files = Files.list(TEMPLATE.resolve("java/dev/cetp"))) {
      for (Path file : (Iterable<Path>) files.sorted()::iterator) {
        source.append(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
      }
    }
    Matcher m = Pattern.compile("\"(cetp_[a-z_]+)\"").matcher(source);
    TreeSet<String> used = new TreeSet<>();
    while (m.find()) {
      used.add(m.group(1));
    }
    assertTrue(used.toString(), used.size() > 30);
    TreeSet<String> missing = new TreeSet<>(used);
    missing.removeAll(resources().keySet());
    assertTrue("used but not in strings.xml: " + missing, missing.isEmpty());
    TreeSet<String> unused = new TreeSet<>(resources().keySet());
    unused.removeAll(used);
    assertTrue("in strings.xml but never shown: " + unused, unused.isEmpty());
  }
}
