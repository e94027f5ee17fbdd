package dev.cetp.testkit.internal;

import android.app.Activity;
import android.graphics.Bitmap;
import android.graphics.Canvas;
import android.util.DisplayMetrics;
import android.view.View;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import javax.imageio.ImageIO;

/**
 * Screenshots of an Activity's window, rendered by Robolectric's native graphics (the real
 * Skia-backed {@code Canvas}; the test class needs {@code @GraphicsMode(NATIVE)}), compared with
 * golden PNGs checked in under {@code tests/android/e2e/src/test/goldens/}.
 *
 * <p>A comparison allows a small tolerance: a pixel differs when a channel is off by more than
 * {@link #CHANNEL_TOLERANCE}, and at most {@link #MAX_DIFFERING} of the pixels may differ (font
 * rasterizing varies slightly between machines). On failure the actual image and a diff (differing
 * pixels red over a faded copy) are written to {@code e2e/target/screenshots/}. To accept new
 * screens, run the suite with {@code -Dcetp.updateGoldens=true}: the goldens are rewritten.
 *
 * <p>A floating window (the consent dialog) is drawn where the platform puts it, centred, over a
 * dimmed backdrop standing in for the app that opened it.
 */
public final class Screenshots {
  private Screenshots() {}

  public static final int CHANNEL_TOLERANCE = 24;
  public static final double MAX_DIFFERING = 0.002;

  /** The dim over the calling app behind a dialog: a light grey app under a 60 % black scrim. */
  private static final int BACKDROP = 0xFF5C5C5E;

  public static Path goldens() {
    Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("android-template"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no repository root above " + System.getProperty("user.dir"));
    }
    return dir.resolve("tests/android/e2e/src/test/goldens");
  }

  private static Path outDir() {
    Path dir = goldens().resolve("../../../target/screenshots").normalize();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return dir;
  }

  /** The screen as the user sees it: the window (a dialog centred over the backdrop). */
  public static Bitmap render(Activity activity) {
    DisplayMetrics dm = activity.getResources().getDisplayMetrics();
    View decor = activity.getWindow().getDecorView();
    Bitmap screen = Bitmap.createBitmap(dm.widthPixels, dm.heightPixels, Bitmap.Config.ARGB_8888);
    Canvas canvas = new Canvas(screen);
    boolean floating = decor.getWidth() < dm.widthPixels || decor.getHeight() < dm.heightPixels;
    canvas.drawColor(floating ? BACKDROP : 0xFFFFFFFF);
    int x = floating ? (dm.widthPixels - decor.getWidth()) / 2 : 0;
    int y = floating ? Math.max(0, (dm.heightPixels - decor.getHeight()) / 2) : 0;
    canvas.save();
    canvas.translate(x, y);
    decor.draw(canvas);
    canvas.restore();
    return screen;
  }

  /** Where on the rendered screen the window's top-left corner is. */
  public static int[] windowOrigin(Activity activity) {
    DisplayMetrics dm = activity.getResources().getDisplayMetrics();
    View decor = activity.getWindow().getDecorView();
    boolean floating = decor.getWidth() < dm.widthPixels || decor.getHeight() < dm.heightPixels;
    if (!floating) {
      return new int[] {0, 0};
    }
    return new int[] {
      (dm.widthPixels - decor.getWidth()) / 2, Math.max(0, (dm.heightPixels - decor.getHeight()) / 2)
    };
  }

  /** The bitmap as an AWT image, to write with {@code javax.imageio}. */
  public static BufferedImage toImage(Bitmap bitmap) {
    int w = bitmap.getWidth();
    int h = bitmap.getHeight();
    int[] pixels = new int[w * h];
    bitmap.getPixels(pixels, 0, w, 0, 0, w, h);
    BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
    image.setRGB(0, 0, w, h, pixels, 0, w);
    return image;
  }

  /**
   * Compares {@code bitmap} with golden {@code name}.png (or writes it with {@code
   * -Dcetp.updateGoldens=true}); throws an AssertionError naming the files to look at.
   */
  public static void assertMatchesGolden(String name, Bitmap bitmap) throws IOException {
    BufferedImage actual = toImage(bitmap);
    File golden = goldens().resolve(name + ".png").toFile();
    if (Boolean.getBoolean("cetp.updateGoldens")) {
      Files.createDirectories(golden.toPath().getParent());
      ImageIO.write(actual, "png", golden);
      return;
    }
    File actualFile = outDir().resolve(name + ".actual.png").toFile();
    if (!golden.isFile()) {
      ImageIO.write(actual, "png", actualFile);
      throw new AssertionError(
          "no golden " + golden + "; the screen is in " + actualFile
              + " (regenerate with -Dcetp.updateGoldens=true)");
    }
    BufferedImage expected = ImageIO.read(golden);
    if (expected.getWidth() != actual.getWidth() || expected.getHeight() != actual.getHeight()) {
      ImageIO.write(actual, "png", actualFile);
      throw new AssertionError(
          name + ": size " + actual.getWidth() + "x" + actual.getHeight() + ", golden "
              + expected.getWidth() + "x" + expected.getHeight() + "; see " + actualFile);
    }
    int w = actual.getWidth();
    int h = actual.getHeight();
    BufferedImage diff = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
    long differing = 0;
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        int a = actual.getRGB(x, y);
        int e = expected.getRGB(x, y);
        boolean differs = false;
        for (int shift = 0; shift < 32; shift += 8) {
          if (Math.abs(((a >>> shift) & 0xFF) - ((e >>> shift) & 0xFF)) > CHANNEL_TOLERANCE) {
            differs = true;
          }
        }
        if (differs) {
          differing++;
          diff.setRGB(x, y, 0xFFFF0000);
        } else {
          int grey = (((e >> 16) & 0xFF) + ((e >> 8) & 0xFF) + (e & 0xFF)) / 3;
          int faded = 192 + grey / 4;
          diff.setRGB(x, y, 0xFF000000 | (faded << 16) | (faded << 8) | faded);
        }
      }
    }
    if (differing > MAX_DIFFERING * w * h) {
      File diffFile = outDir().resolve(name + ".diff.png").toFile();
      ImageIO.write(actual, "png", actualFile);
      ImageIO.write(diff, "png", diffFile);
      throw new AssertionError(
          name + ": " + differing + " of " + (w * h) + " pixels differ from " + golden + "; see "
              + actualFile + " and " + diffFile
              + " (if the change is intended: -Dcetp.updateGoldens=true)");
    }
  }
}
