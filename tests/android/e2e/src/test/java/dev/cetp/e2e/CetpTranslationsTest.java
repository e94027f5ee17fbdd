package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import android.content.Context;
import android.content.res.Configuration;
import android.content.res.Resources;
import android.icu.text.PluralRules;
import dev.cetp.e2e.category.AuthProviderBundle;
// Internal: the template's strings.xml files themselves, which no app's test reads.
import dev.cetp.testkit.internal.TemplateStrings;
import dev.cetp.testkit.internal.TemplateStrings.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * The template's translations: every shipped language has every string of {@code
 * res/values/strings.xml} with the same format arguments, a plurals item for every plural form
 * the language has, and the compiled resources (the bundle's aapt package) give each language its
 * own text. Runs in {@code bundle-auth-provider}, whose resources are the template's.
 */
@RunWith(RobolectricTestRunner.class)
@Category(AuthProviderBundle.class)
public class CetpTranslationsTest {
  /** The languages the template promises (README), as resource qualifiers. */
  static final List<String> SHIPPED =
      Arrays.asList("ar", "de", "es", "fr", "hi", "ja", "pt-rBR", "zh-rCN");

  @Test
  public void theShippedLanguagesAreThere() throws Exception {
    assertTrue(TemplateStrings.languages().toString(), TemplateStrings.languages().containsAll(SHIPPED));
  }

  @Test
  public void everyLanguageHasEveryStringWithTheSameArguments() throws Exception {
    Map<String, Entry> english = TemplateStrings.english();
    assertTrue(english.size() > 50);
    List<String> problems = new ArrayList<>();
    for (String language : TemplateStrings.languages()) {
      Map<String, Entry> translated = TemplateStrings.of(language);
      Set<String> missing = new TreeSet<>(english.keySet());
      missing.removeAll(translated.keySet());
      Set<String> extra = new TreeSet<>(translated.keySet());
      extra.removeAll(english.keySet());
      if (!missing.isEmpty()) {
        problems.add(language + " lacks " + missing);
      }
      if (!extra.isEmpty()) {
        problems.add(language + " has strings English lacks: " + extra);
      }
      PluralRules rules = PluralRules.forLocale(locale(language));
      for (Entry original : english.values()) {
        Entry entry = translated.get(original.name);
        if (entry == null) {
          continue;
        }
        if (entry.plurals != original.plurals) {
          problems.add(language + ": " + original.name + " must be a " + (original.plurals ? "<plurals>" : "<string>"));
          continue;
        }
        Set<String> wanted = TemplateStrings.arguments(original.text());
        if (!original.plurals) {
          Set<String> got = TemplateStrings.arguments(entry.text());
          if (!got.equals(wanted)) {
            problems.add(language + ": " + original.name + " has " + got + ", English " + wanted);
          }
          continue;
        }
        for (String keyword : rules.getKeywords()) {
          String item = entry.byQuantity.get(keyword);
          if (item == null) {
            problems.add(language + ": " + original.name + " has no quantity " + keyword);
            continue;
          }
          Set<String> got = TemplateStrings.arguments(item);
          // A form that stands for one number only (Arabic "two") may say it in words.
          Set<String> allowed = new TreeSet<>(wanted);
          if (rules.getUniqueKeywordValue(keyword) != PluralRules.NO_UNIQUE_VALUE) {
            allowed.removeIf(a -> a.endsWith("d") && got.stream().noneMatch(a::equals));
          }
          if (!got.equals(allowed)) {
            problems.add(language + ": " + original.name + "/" + keyword + " has " + got + ", English " + wanted);
          }
        }
        for (String quantity : entry.byQuantity.keySet()) {
          if (!rules.getKeywords().contains(quantity)) {
            problems.add(language + ": " + original.name + " has quantity " + quantity
                + ", which the language does not use (" + rules.getKeywords() + ")");
          }
        }
      }
    }
    assertTrue(String.join("\n", problems), problems.isEmpty());
  }

  @Test
  public void theCompiledResourcesGiveEachLanguageItsOwnText() throws Exception {
    Context app = RuntimeEnvironment.getApplication();
    Map<String, Entry> english = TemplateStrings.english();
    Resources base = resources(app, Locale.US);
    for (String language : TemplateStrings.languages()) {
      Resources res = resources(app, locale(language));
      Map<String, Entry> translated = TemplateStrings.of(language);
      for (Entry original : english.values()) {
        if (original.plurals) {
          int id = res.getIdentifier(original.name, "plurals", app.getPackageName());
          for (int count : new int[] {0, 1, 2, 3, 11, 100, 1_000_000}) {
            String text = res.getQuantityString(id, count, count, "X");
            assertTrue(language + " " + original.name + " " + count + ": " + text, !text.isEmpty());
          }
          continue;
        }
        int id = res.getIdentifier(original.name, "string", app.getPackageName());
        assertTrue(original.name, id != 0);
        assertEquals(language + " " + original.name, translated.get(original.name).text(), res.getString(id));
        assertEquals(original.name, original.text(), base.getString(id));
      }
      int allow = res.getIdentifier("cetp_allow", "string", app.getPackageName());
      assertNotEquals(language, base.getString(allow), res.getString(allow));
    }
  }

  /** Every string is shown somewhere: named in the template's Java, layouts or manifest. */
  @Test
  public void everyStringIsUsed() throws Exception {
    StringBuilder source = new StringBuilder();
    Path main = TemplateStrings.res().getParent();
    try (Stream<Path> files = Files.walk(main)) {
      for (Path file : (Iterable<Path>) files.sorted()::iterator) {
        String name = file.getFileName().toString();
        boolean code = name.endsWith(".java");
        boolean xml = name.endsWith(".xml") && !file.getParent().getFileName().toString().startsWith("values");
        if (Files.isRegularFile(file) && (code || xml)) {
          source.append(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
        }
      }
    }
    Matcher m = Pattern.compile("(?:R\\.(?:string|plurals)\\.|@string/)(cetp_[a-z_]+)").matcher(source);
    Set<String> used = new TreeSet<>();
    while (m.find()) {
      used.add(m.group(1));
    }
    Set<String> unused = new TreeSet<>(TemplateStrings.english().keySet());
    unused.removeAll(used);
    assertTrue("in strings.xml but never shown: " + unused, unused.isEmpty());
  }

  private static Resources resources(Context app, Locale locale) {
    Configuration config = new Configuration(app.getResources().getConfiguration());
    config.setLocale(locale);
    return app.createConfigurationContext(config).getResources();
  }

  /** {@code pt-rBR} as a Locale. */
  static Locale locale(String qualifier) {
    String[] parts = qualifier.split("-r");
    return parts.length == 2 ? new Locale(parts[0], parts[1]) : new Locale(parts[0]);
  }
}
